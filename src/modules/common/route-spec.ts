// What a route is, without any framework type: the http layer mounts these, discovery documents them.
import type * as z from 'zod';
import type { ErrorCode } from '../../errors.js';
import type { Principal } from '../../ports/token-verifier.js';
import type { LimitName } from '../../config/rate-limits.js';

export type Method = 'GET' | 'POST' | 'PUT' | 'DELETE';

/** Who may call a route from a browser (D10): any origin, the site's origins, or the MCP origins. */
export type CorsPolicy = 'public' | 'site' | 'mcp';

/** `optional-bearer`: no Authorization header is fine; a presented token must be valid and carry `scope`. */
export interface AuthSpec {
  kind: 'optional-bearer';
  scope: string;
  /** RFC 6750 section 3.1 says 403; the contract says 401 for /api/contact. Default 401. */
  insufficientScopeStatus?: 401 | 403;
}

export interface ResponseDoc {
  description: string;
  schema?: z.ZodType;
  contentType?: string;
  /** Other representations of the same answer, chosen by Accept. */
  alternatives?: readonly { contentType: string; schema: z.ZodType }[];
  headers?: readonly string[];
}

export type BodyType = 'json' | 'form';

/** The request's logger: its lines carry the request's id, as its access line does. */
export interface RequestLog {
  warn(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}

export interface RequestInput<Body> {
  body: Body;
  /** The validated query string, when the route declares `query`. */
  query: Record<string, unknown>;
  headers: Readonly<Record<string, string | string[] | undefined>>;
  ip: string;
  /** Present only when a valid Bearer token carrying the route's scope was sent. */
  principal: Principal | undefined;
  log: RequestLog;
}

export interface Reply {
  status: number;
  body?: unknown;
  /** Defaults to application/json for object bodies. */
  contentType?: string;
  headers?: Record<string, string>;
}

export interface RouteSpec<Body = unknown> {
  method: Method;
  path: string;
  operationId: string;
  summary: string;
  description?: string;
  tags: readonly string[];
  /** The body schema; its presence makes the route accept only `bodyTypes` (default JSON). */
  body?: z.ZodType<Body>;
  bodyTypes?: readonly BodyType[];
  /** The error code a body that fails validation gets (default invalid_request). */
  invalidBodyCode?: ErrorCode;
  query?: z.ZodType;
  /** The RFC 8414 metadata member that advertises this route (`token_endpoint`, ...). */
  advertiseAs?: string;
  bodyLimitBytes?: number;
  /** Request headers the route reads, documented as parameters. */
  headerParams?: readonly { name: string; description: string; schema: z.ZodType }[];
  responses: Readonly<Record<number, ResponseDoc>>;
  /** Error codes this route can answer with, beyond the ones every route shares. */
  errors?: readonly ErrorCode[];
  limit?: LimitName;
  cors?: CorsPolicy;
  auth?: AuthSpec;
  /** OAuth client authentication (RFC 6749 section 2.3.1): HTTP Basic, or the client_secret form field. */
  clientAuthentication?: boolean;
  /** JSON-RPC endpoints answer an unparsable body with a JSON-RPC parse error (-32700), not the Error body. */
  jsonRpc?: boolean;
  /** Hidden routes are served but left out of the OpenAPI document. */
  hidden?: boolean;
  /** Work done once at start, after every route is known (discovery documents serialize here). */
  prepare?(): void;
  handler(input: RequestInput<Body>): Promise<Reply>;
}

/** Lets a table hold routes of different body types. */
export const route = <Body>(spec: RouteSpec<Body>): RouteSpec => spec;
