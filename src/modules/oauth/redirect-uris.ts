// Which redirect URIs a client may register (D6) and how a presented one matches (RFC 8252 section 7.3).

const LOOPBACK_HOSTS = new Set(['127.0.0.1', '[::1]', 'localhost']);
// Schemes of MCP clients that register without a reverse-domain private-use scheme.
const MCP_CLIENT_SCHEMES = new Set(['cursor:', 'claude:', 'vscode:']);

/** Why the URI may not be registered, or undefined when it may. */
export function redirectUriProblem(raw: string): string | undefined {
  // The parser would percent-encode or drop them; stored raw, a C1 control (U+009B, CSI) reaches terminals.
  if (/[\s\u0000-\u001f\u007f-\u009f]/.test(raw)) return 'a redirect URI must not contain spaces or control characters (C0 or C1)';
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return `${raw} is not an absolute URI`;
  }
  if (url.hash || raw.includes('#')) return `${raw} must not contain a fragment (RFC 6749 section 3.1.2)`;
  if (url.protocol === 'https:') return undefined;
  if (url.protocol === 'http:') {
    return LOOPBACK_HOSTS.has(url.hostname) ? undefined : `${raw}: http is allowed only on loopback (127.0.0.1, [::1], localhost)`;
  }
  // RFC 8252 section 7.1: private-use schemes in reverse domain order, e.g. com.example.app:/cb.
  if (url.protocol.slice(0, -1).includes('.') || MCP_CLIENT_SCHEMES.has(url.protocol)) return undefined;
  return `${raw}: the scheme must be https, http on loopback, or a private-use scheme such as com.example.app`;
}

/** Exact match, except that loopback http URIs match on any port (RFC 8252 section 7.3). */
export function matchesRegistered(presented: string, registered: readonly string[]): boolean {
  if (registered.includes(presented)) return true;
  const loose = withoutLoopbackPort(presented);
  return loose !== undefined && registered.some((uri) => withoutLoopbackPort(uri) === loose);
}

/** An http URI on a loopback host: it reaches whatever listens on the visitor's own machine. */
export function isLoopbackUri(raw: string): boolean {
  return withoutLoopbackPort(raw) !== undefined;
}

function withoutLoopbackPort(raw: string): string | undefined {
  try {
    const url = new URL(raw);
    if (url.protocol !== 'http:' || !LOOPBACK_HOSTS.has(url.hostname)) return undefined;
    url.port = '';
    return url.href;
  } catch {
    return undefined;
  }
}
