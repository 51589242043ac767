// The contact routes: POST /api/contact (its CORS preflight is derived from `cors`).
import { headerValue } from '../common/header-value.js';
import { IdempotencyKey, readIdempotencyKey } from '../common/idempotency-key.js';
import { route, type RouteSpec } from '../common/route-spec.js';
import { ContactRequest, ContactResponse } from './schema.js';
import { submitInquiry, type ContactDeps } from './submit.js';

export const CONTACT_SCOPE = 'contact:write';

/**
 * POST /api/contact: a Bearer token with contact:write is optional, and without one the human check applies.
 * 200 once some channel has the inquiry; 502 delivery_failed when none took it.
 */
export function contactRoutes(deps: ContactDeps): RouteSpec[] {
  return [
    route<ContactRequest>({
      method: 'POST',
      path: '/api/contact',
      operationId: 'submitContact',
      summary: 'Send a sales, demo or support inquiry to the team',
      description:
        'Delivered by e-mail to the operating team. Browsers send a Turnstile token; clients with a Bearer token carrying `contact:write` skip that check. The inquiry is stored before the e-mail is sent. One that screening keeps back (spam, or the same address and message as an inquiry received shortly before) is answered 200 like any other.',
      tags: ['contact'],
      body: ContactRequest,
      bodyLimitBytes: 128 * 1024,
      headerParams: [{ name: 'Idempotency-Key', description: 'Makes retries safe (a repeat replays the first answer).', schema: IdempotencyKey }],
      responses: { 200: { description: 'The inquiry was delivered to the team.', schema: ContactResponse } },
      errors: [
        'invalid_token',
        'insufficient_scope',
        'human_check_failed',
        'idempotency_in_progress',
        'idempotency_key_reused',
        'payload_too_large',
        'unsupported_media_type',
        'rate_limited',
        'delivery_failed',
        'human_check_unavailable',
        'store_unavailable',
      ],
      limit: 'contact',
      cors: 'site',
      auth: { kind: 'optional-bearer', scope: CONTACT_SCOPE },
      async handler({ body, headers, ip, principal }) {
        await submitInquiry(deps, {
          request: body,
          channel: principal ? 'api' : 'web',
          remoteIp: ip,
          clientId: principal?.clientId ?? null,
          authenticated: principal !== undefined,
          idempotencyKey: readIdempotencyKey(headers['idempotency-key']),
          userAgent: headerValue(headers['user-agent']),
          referrer: headerValue(headers.referer),
        });
        return { status: 200, body: { ok: true } };
      },
    }),
  ];
}
