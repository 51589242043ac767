// The webhook channel (D15): each inquiry POSTed, signed, to the operator's own endpoint.

export interface WebhookEvent {
  /** The same on every attempt (the inquiry's id), so the receiver can drop a repeat. */
  id: string;
  type: string;
  /** When the event happened: the inquiry's acceptance. */
  timestamp: Date;
  data: Record<string, unknown>;
}

export interface WebhookSender {
  /** Resolves with the status once the endpoint answered 2xx; rejects with WebhookDeliveryError. An aborted `signal` stops the attempt. */
  send(event: WebhookEvent, signal?: AbortSignal): Promise<number>;
  /** The process is stopping: every send still waiting gives up now with a WebhookDeliveryError, to be retried. */
  abandon(): void;
  close(): Promise<void>;
}

/** The endpoint could not be reached, was too slow, redirected, or answered other than 2xx. Safe to log. */
export class WebhookDeliveryError extends Error {
  override name = 'WebhookDeliveryError';
  constructor(
    reason: string,
    /** The endpoint's status, when it answered. */
    readonly status?: number,
  ) {
    super(reason);
  }
}
