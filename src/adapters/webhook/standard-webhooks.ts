// The webhook channel as the Standard Webhooks specification signs it: webhook-id, webhook-timestamp and
// webhook-signature "v1,<base64 HMAC-SHA256 of id.timestamp.body>" with the whsec_ secret's bytes.
import { createHmac } from 'node:crypto';
import type { WebhookSettings } from '../../config/mail.js';
import type { Clock } from '../../ports/clock.js';
import { WebhookDeliveryError, type WebhookSender } from '../../ports/webhook.js';

export const WEBHOOK_TIMEOUT_MS = 10_000;
// The endpoint's answer is read only to free the connection: its status is what counts.
const MAX_RESPONSE_BYTES = 64 * 1024;

/**
 * A WebhookSender that POSTs each event to WEBHOOK_URL, signed at the attempt's time. An answer other than
 * 2xx (a redirect is not followed), no answer in time or abandon() rejects with WebhookDeliveryError.
 */
export function standardWebhookSender(settings: WebhookSettings, clock: Clock): WebhookSender {
  // Aborted by abandon(): one inquiry a send, so a composed signal each is no cost that matters.
  const stopping = new AbortController();
  return {
    async send(event, signal) {
      const body = JSON.stringify({ type: event.type, timestamp: event.timestamp.toISOString(), data: event.data });
      // The attempt's time, not the event's: receivers refuse old timestamps to stop replays.
      const timestamp = String(Math.floor(clock.now() / 1000));
      const signature = createHmac('sha256', settings.secret).update(`${event.id}.${timestamp}.${body}`).digest('base64');
      const timeout = AbortSignal.timeout(WEBHOOK_TIMEOUT_MS);
      let response: Response;
      try {
        response = await fetch(settings.url, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            'user-agent': 'Portico-Webhooks/1',
            'webhook-id': event.id,
            'webhook-timestamp': timestamp,
            'webhook-signature': `v1,${signature}`,
          },
          body,
          // The URL is the operator's own: a redirect is a misconfiguration to report, not to follow.
          redirect: 'manual',
          signal: AbortSignal.any([timeout, stopping.signal, ...(signal ? [signal] : [])]),
        });
        await drain(response);
      } catch (error) {
        if (stopping.signal.aborted) throw new WebhookDeliveryError('webhook: not sent: the process stopped first');
        if (timeout.aborted) throw new WebhookDeliveryError(`webhook: no answer within ${WEBHOOK_TIMEOUT_MS / 1000} s`);
        throw new WebhookDeliveryError(`webhook: ${describe(error)}`);
      }
      if (response.status < 200 || response.status > 299) {
        const where = response.status >= 300 && response.status < 400 ? ` (redirects are not followed: set WEBHOOK_URL to ${response.headers.get('location') ?? 'the final URL'})` : '';
        throw new WebhookDeliveryError(`webhook: HTTP ${response.status}${where}`, response.status);
      }
      return response.status;
    },
    abandon() {
      stopping.abort();
    },
    async close() {},
  };
}

/** Reads at most MAX_RESPONSE_BYTES of the answer, then lets the rest go. */
async function drain(response: Response): Promise<void> {
  if (!response.body) return;
  let read = 0;
  const reader = response.body.getReader();
  for (;;) {
    const chunk = (await reader.read()) as { done: true } | { done: false; value: Uint8Array };
    if (chunk.done) return;
    read += chunk.value.byteLength;
    if (read > MAX_RESPONSE_BYTES) {
      await reader.cancel();
      return;
    }
  }
}

function describe(error: unknown): string {
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  return (cause?.code ?? cause?.message ?? (error as { message?: string }).message ?? 'unknown error').slice(0, 200);
}
