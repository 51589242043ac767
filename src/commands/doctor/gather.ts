// What `portico doctor` asks a deployment, in the order a host asks it: the protected-resource metadata,
// the authorization server's, the 401 challenge of /mcp, tools/list in both protocol eras and the app's
// resource, and the preflights a browser sends. It never leaves the deployment's origin, and creates
// nothing there: the token and registration endpoints get requests they refuse (an unknown client, no
// redirect URIs), which show that they answer in time.
import type { Answer, Prober, ProbeRequest } from './probe.js';
import { shortUrl, wellKnownUrl, type Target } from './urls.js';

export const LEGACY_VERSION = '2025-11-25';
export const MODERN_VERSION = '2026-07-28';
export type Era = typeof LEGACY_VERSION | typeof MODERN_VERSION;
/** The Origin of the preflights that show any site's page may read the discovery documents. */
export const FOREIGN_ORIGIN = 'https://portico-doctor.example';
/** A token no server issued: the challenge it gets is what a host with no token gets. */
const UNKNOWN_TOKEN = 'portico-doctor-unknown-token';

export interface Observations {
  target: Target;
  budgetMs: number;
  /** Every request made, in order. */
  answers: Answer[];
  /** The first request; alone when it got no answer (`answered`). */
  first: Answer;
  resources?: { root: Answer; mcp: Answer; contact: Answer };
  authorizationServer?: Answer;
  token?: Answer;
  registration?: Answer;
  challenge?: Answer;
  /** The resource_metadata URL the challenge names, when it is on the deployment's origin. */
  challengeMetadata?: Answer;
  toolsList?: Record<Era, Answer>;
  appResource?: Answer;
  discoveryPreflights?: Answer[];
  contactPreflights?: { origin: string; answer: Answer }[];
}

/**
 * Whether the deployment answered: an HTTP status came back, whole answer or not. Without one (no
 * connection, no TLS session, nothing within the budget, no HTTP) the URL cannot be reached (exit 2).
 */
export const answered = (first: Answer): boolean => first.status !== undefined;

/** The requests, three rounds of them; those of a round are independent and go together. */
export async function gather(target: Target, probe: Prober, budgetMs: number, origins: readonly string[]): Promise<Observations> {
  const answers: Answer[] = [];
  const ask = async (request: ProbeRequest) => {
    const answer = await probe.send(request);
    answers.push(answer);
    return answer;
  };
  const get = (url: string, headers: Record<string, string> = { accept: 'application/json' }) => ask({ method: 'GET', url, headers });
  const rootMetadataUrl = wellKnownUrl(target.given, 'oauth-protected-resource');
  const first = await get(rootMetadataUrl);
  const seen: Observations = { target, budgetMs, answers, first };
  // Every other request would meet what the first met, and the run would take a budget a round for it.
  if (!answered(first)) return seen;

  const mcpUrl = `${target.base}/mcp`;
  const issuerMetadataUrl = wellKnownUrl(target.base, 'oauth-authorization-server');
  const discovery = [rootMetadataUrl, wellKnownUrl(mcpUrl, 'oauth-protected-resource'), wellKnownUrl(`${target.base}/api/contact`, 'oauth-protected-resource'), issuerMetadataUrl];
  const [mcp, contact, authorizationServer, challenge, legacy, modern, discoveryPreflights, contactPreflights] = await Promise.all([
    get(discovery[1]!),
    get(discovery[2]!),
    // Portico is its own authorization server: its metadata is at the deployment's issuer, whatever the
    // resource documents name (the resource checks say when they name another).
    get(issuerMetadataUrl),
    ask(mcpRequest(mcpUrl, LEGACY_VERSION, 'tools/list', { authorization: `Bearer ${UNKNOWN_TOKEN}` })),
    ask(mcpRequest(mcpUrl, LEGACY_VERSION, 'tools/list')),
    ask(mcpRequest(mcpUrl, MODERN_VERSION, 'tools/list')),
    Promise.all(discovery.map((url) => ask(preflight(url, FOREIGN_ORIGIN, 'GET')))),
    Promise.all(origins.map(async (origin) => ({ origin, answer: await ask(preflight(`${target.base}/api/contact`, origin, 'POST', 'content-type')) }))),
  ]);
  Object.assign(seen, {
    resources: { root: first, mcp, contact },
    authorizationServer,
    challenge,
    toolsList: { [LEGACY_VERSION]: legacy, [MODERN_VERSION]: modern },
    discoveryPreflights,
    contactPreflights,
  });

  const metadata = jsonObject(authorizationServer.body);
  const onOrigin = (value: unknown): value is string => typeof value === 'string' && value.startsWith(`${target.origin}/`);
  const tokenEndpoint = metadata?.token_endpoint;
  const registrationEndpoint = metadata?.registration_endpoint;
  const challengeMetadataUrl = challengeParameters(challenge.headers['www-authenticate'])?.resource_metadata;
  const appUri = appResourceUri(modern) ?? appResourceUri(legacy);
  const [token, registration, challengeMetadata, appResource] = await Promise.all([
    // An unknown public client asking for a code: refused (invalid_client), nothing stored.
    onOrigin(tokenEndpoint)
      ? ask({ method: 'POST', url: tokenEndpoint, headers: FORM, body: 'grant_type=authorization_code&code=portico-doctor&code_verifier=portico-doctor&client_id=portico-doctor' })
      : undefined,
    // A registration with no redirect URIs: refused (invalid_redirect_uri), no client made.
    onOrigin(registrationEndpoint) ? ask({ method: 'POST', url: registrationEndpoint, headers: { 'content-type': 'application/json', accept: 'application/json' }, body: '{}' }) : undefined,
    onOrigin(challengeMetadataUrl) ? get(challengeMetadataUrl) : undefined,
    appUri === undefined ? undefined : ask(mcpRequest(mcpUrl, MODERN_VERSION, 'resources/read', {}, { uri: appUri })),
  ]);
  return Object.assign(seen, { token, registration, challengeMetadata, appResource });
}

const FORM = { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' };

/**
 * A request as each era's clients send it: 2025-11-25 with the version header only (stateless, no
 * initialize first); 2026-07-28 with the method (and name) in headers and the version and capabilities
 * in `_meta` (MCP 2026-07-28, "Transports").
 */
export function mcpRequest(url: string, era: Era, method: 'tools/list' | 'resources/read', extraHeaders: Record<string, string> = {}, params: Record<string, unknown> = {}): ProbeRequest {
  const headers: Record<string, string> = { accept: 'application/json, text/event-stream', 'content-type': 'application/json', 'mcp-protocol-version': era, ...extraHeaders };
  let body: Record<string, unknown> = { jsonrpc: '2.0', id: 1, method };
  if (era === MODERN_VERSION) {
    headers['mcp-method'] = method;
    if (typeof params.uri === 'string') headers['mcp-name'] = params.uri;
    body = { ...body, params: { ...params, _meta: { 'io.modelcontextprotocol/protocolVersion': MODERN_VERSION, 'io.modelcontextprotocol/clientCapabilities': {} } } };
  } else if (Object.keys(params).length) {
    body = { ...body, params };
  }
  return { method: 'POST', url, headers, body: JSON.stringify(body) };
}

function preflight(url: string, origin: string, method: string, headers?: string): ProbeRequest {
  return { method: 'OPTIONS', url, headers: { origin, 'access-control-request-method': method, ...(headers ? { 'access-control-request-headers': headers } : {}) } };
}

/** Deeper than any document Portico answers (a tool's schema is 5 levels): a deeper one is not parsed. */
const MAX_JSON_DEPTH = 64;

/** Whether `text` opens more than `max` arrays or objects inside one another, strings aside: one pass, no parse. */
function nestedDeeperThan(text: string, max: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c)
        i++; // a backslash escapes the next character
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) {
      if (++depth > max) return true;
    } else if (c === 0x5d || c === 0x7d) depth--;
  }
  return false;
}

/** A JSON object, or undefined for anything else (an HTML error page, an array, a cut body, one nested past reason). */
export function jsonObject(text: string): Record<string, unknown> | undefined {
  if (nestedDeeperThan(text, MAX_JSON_DEPTH)) return undefined;
  try {
    const value: unknown = JSON.parse(text);
    return value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/** The auth-params of a `Bearer` challenge (RFC 6750 section 3), lower-case names; undefined without one. */
export function challengeParameters(header: string | undefined): Record<string, string> | undefined {
  const bearer = header === undefined ? -1 : header.search(/(^|,\s*)Bearer(\s|$)/i);
  if (header === undefined || bearer < 0) return undefined;
  const params: Record<string, string> = {};
  const rest = header.slice(bearer).replace(/^,?\s*Bearer/i, '');
  for (const match of rest.matchAll(/\s*([A-Za-z_][\w-]*)\s*=\s*("((?:[^"\\]|\\.)*)"|[^\s,]+)\s*(,|$)/g)) {
    params[match[1]!.toLowerCase()] ??= match[3] === undefined ? match[2]! : match[3].replace(/\\(.)/g, '$1');
  }
  return params;
}

/** The tools of a tools/list answer, or undefined when it is not one. */
export function toolsOf(answer: Answer | undefined): Record<string, unknown>[] | undefined {
  const tools = (jsonObject(answer?.body ?? '')?.result as { tools?: unknown } | undefined)?.tools;
  return Array.isArray(tools) ? tools.filter((tool): tool is Record<string, unknown> => !!tool && typeof tool === 'object') : undefined;
}

/** contact_service's MCP App resource: `_meta.ui.resourceUri` (MCP Apps), or the older `_meta["ui/resourceUri"]`. */
export function appResourceUri(answer: Answer | undefined): string | undefined {
  const tool = toolsOf(answer)?.find((t) => t.name === 'contact_service');
  const meta = tool?._meta as Record<string, unknown> | undefined;
  const uri = (meta?.ui as { resourceUri?: unknown } | undefined)?.resourceUri ?? meta?.['ui/resourceUri'];
  return typeof uri === 'string' ? uri : undefined;
}

/** A request named for a line: `GET /.well-known/oauth-authorization-server`. */
export const named = (answer: Answer, origin: string) => `${answer.method} ${shortUrl(answer.url, origin)}`;
