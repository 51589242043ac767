// The one error type: a wire code, its HTTP status and a description; the catalogue of every code.

/** Every `error` code the API answers with, its status and when. The OpenAPI document lists them. */
export const ERROR_CATALOGUE = {
  invalid_request: { status: 400, meaning: 'The request is malformed or fails validation.' },
  invalid_client_metadata: { status: 400, meaning: 'Registration: the client metadata is invalid or inconsistent (RFC 7591).' },
  invalid_redirect_uri: { status: 400, meaning: 'Registration: a redirect URI is not allowed (RFC 7591).' },
  invalid_grant: { status: 400, meaning: "Token: the code, refresh token or PKCE verifier is invalid, expired, used or not this client's (RFC 6749)." },
  unauthorized_client: { status: 400, meaning: 'The client is not registered for this grant type (RFC 6749).' },
  unsupported_grant_type: { status: 400, meaning: 'Token: the grant type is not supported (RFC 6749).' },
  invalid_scope: { status: 400, meaning: 'A requested scope is unknown or beyond what the client registered (RFC 6749).' },
  invalid_target: { status: 400, meaning: 'The requested resource is not one this server issues tokens for (RFC 8707).' },
  invalid_client: { status: 401, meaning: 'Client authentication failed (RFC 6749 section 5.2).' },
  invalid_token: { status: 401, meaning: 'A Bearer token was sent but is unknown, expired or revoked.' },
  insufficient_scope: { status: 401, meaning: 'The Bearer token lacks the scope the route needs (401 on /api/contact per the contract; 403 on /mcp, D3).' },
  human_check_failed: { status: 403, meaning: 'Turnstile rejected the token (invalid, expired or already spent).' },
  forbidden: { status: 403, meaning: 'The request comes from a Host or Origin this server does not answer (DNS-rebinding defence).' },
  not_found: { status: 404, meaning: 'No such route.' },
  method_not_allowed: { status: 405, meaning: 'The route exists but not with this method.' },
  request_timeout: { status: 408, meaning: 'The request (headers or body) did not arrive in time; the connection is closed.' },
  idempotency_in_progress: { status: 409, meaning: 'A request with this Idempotency-Key is still being processed.' },
  payload_too_large: { status: 413, meaning: 'The body exceeds the route limit.' },
  unsupported_media_type: { status: 415, meaning: 'The Content-Type is not the one the route accepts.' },
  expectation_failed: { status: 417, meaning: 'An Expect header other than 100-continue (RFC 9110 section 10.1.1).' },
  idempotency_key_reused: { status: 422, meaning: 'The Idempotency-Key was already used with a different body.' },
  rate_limited: { status: 429, meaning: 'The per-IP rate limit of the route is exhausted; see Retry-After.' },
  request_header_fields_too_large: { status: 431, meaning: 'The request headers exceed the server limit (16 KiB in all).' },
  server_error: { status: 500, meaning: 'An unexpected failure; nothing about it is disclosed.' },
  delivery_failed: { status: 502, meaning: 'No delivery channel (the mail relay, the webhook) took the inquiry; it is kept, and retried in the background unless it was refused for good.' },
  human_check_unavailable: { status: 503, meaning: 'Turnstile could not be reached; retry after Retry-After seconds.' },
  not_ready: { status: 503, meaning: 'A backing store does not answer.' },
  server_busy: { status: 503, meaning: 'The node is working on as many inquiries as it takes at once; nothing was stored; retry after Retry-After seconds.' },
  store_unavailable: { status: 503, meaning: 'The database does not answer (restarting or unreachable); retry after Retry-After seconds. Nothing was half-written.' },
  shutting_down: { status: 503, meaning: 'This node is shutting down (a restart or an upgrade); nothing was done; send the request again, which another node takes, after Retry-After seconds.' },
} as const satisfies Record<string, { status: number; meaning: string }>;

export type ErrorCode = keyof typeof ERROR_CATALOGUE;

/** What an error answer carries (D9): the wire code, its description, extra headers and the HTTP status. */
export interface Problem {
  readonly code: ErrorCode;
  readonly description: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly status: number;
}

const NO_HEADERS: Readonly<Record<string, string>> = Object.freeze({});

export class AppError extends Error implements Problem {
  override name = 'AppError';
  readonly status: number;

  /** `status` overrides the catalogue's only where a contract says so (insufficient_scope: 401 or 403). */
  constructor(
    readonly code: ErrorCode,
    readonly description: string,
    readonly headers: Readonly<Record<string, string>> = NO_HEADERS,
    status?: number,
  ) {
    super(description);
    this.status = status ?? ERROR_CATALOGUE[code].status;
  }
}

/** An AppError invalid_request (400). */
export const invalidRequest = (description: string) => new AppError('invalid_request', description);
