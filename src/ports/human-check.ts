// Proving a browser visitor is human (Cloudflare Turnstile), as a port the contact module can call.

export type HumanCheckResult = { passed: true } | { passed: false; reasons: string[] };

export interface HumanCheck {
  verify(input: { token: string; remoteIp: string }): Promise<HumanCheckResult>;
  /** Lets go of kept-alive connections, at shutdown. */
  close(): void;
}

/** The verifier could not give an answer (unreachable, slow, 5xx, internal-error). */
export class HumanCheckUnavailable extends Error {
  override name = 'HumanCheckUnavailable';
}
