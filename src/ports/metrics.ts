// What the modules report for monitoring (METRICS_PORT): events only, never personal data. Every
// label value comes from a closed set, so that no client can grow the number of series.
import type { InquiryChannel, Topic } from './inquiry-store.js';
import type { SpamReason } from './spam-check.js';

export type DeliveryChannel = 'mail' | 'webhook';
/** What became of an inquiry at a step: kept as spam or as a duplicate, or a delivery attempt's result. */
export type InquiryOutcome = 'delivered' | 'retrying' | 'failed' | 'spam' | 'duplicate';
/** What a screening reason did to its inquiry: kept it as spam, or marked it for the team. */
export type SpamAction = 'held' | 'marked';
export type TokenGrant = 'authorization_code' | 'refresh_token' | 'client_credentials';

export interface Metrics {
  /** An inquiry stored for delivery (spam is an outcome instead); a null topic is counted as `general`. */
  inquiryAccepted(channel: InquiryChannel, topic: Topic | null): void;
  inquiryOutcome(channel: InquiryChannel, topic: Topic | null, outcome: InquiryOutcome): void;
  /** A reason screening gave a stored inquiry (not a duplicate, which counts as one), once per reason. */
  inquirySpamReason(channel: InquiryChannel, reason: SpamReason, action: SpamAction): void;
  deliveryAttempt(channel: DeliveryChannel, ok: boolean, seconds: number): void;
  tokenIssued(grant: TokenGrant): void;
  /** A client registered by RFC 7591 dynamic registration. */
  clientRegistered(): void;
  /** A request or a tool call refused by the named limit. */
  rateLimited(limit: string): void;
  /** Rows a migration's backfill (D22) has left to fill, after each of its batches; 0 once it has finished. */
  backfillRemaining(migration: string, rows: number): void;
}

/** METRICS_PORT unset: nothing is counted. */
export const noMetrics: Metrics = {
  inquiryAccepted() {},
  inquiryOutcome() {},
  inquirySpamReason() {},
  deliveryAttempt() {},
  tokenIssued() {},
  clientRegistered() {},
  rateLimited() {},
  backfillRemaining() {},
};
