// The names this server answers to, and the one its metadata gives. With a loopback PUBLIC_URL every
// loopback name on its port reaches the server (D3), so that a newcomer's curl works; but the issuer,
// the resource identifiers and the metadata URLs all name PUBLIC_URL, and a client that checks them
// (RFC 9728 section 3.3, RFC 8414 section 3.3) refuses a document for another origin than the one it
// called. The aliases are answered as before, and said to be aliases.
const LOOPBACK_NAMES = ['localhost', '127.0.0.1', '[::1]'];

export interface PublicOrigin {
  /** PUBLIC_URL, as clients must call it. */
  url: string;
  /** PUBLIC_URL's Host value (`host[:port]`, lower case). */
  host: string;
  /** The Host values that name this server: PUBLIC_URL's, and for a loopback one every loopback name on its port. */
  hosts: ReadonlySet<string>;
  /** Whether `host` (a Host header) names this server by another name than PUBLIC_URL's. */
  isAlias(host: string | undefined): boolean;
}

/**
 * The Host values this server answers to: PUBLIC_URL's, and for a loopback one every loopback name on its
 * port (D3).
 */
export function publicOrigin(publicUrl: string): PublicOrigin {
  const url = new URL(publicUrl);
  const own = url.host.toLowerCase();
  const port = url.port ? `:${url.port}` : '';
  const hosts = new Set([own]);
  if (LOOPBACK_NAMES.includes(url.hostname)) for (const name of LOOPBACK_NAMES) hosts.add(`${name}${port}`);
  return {
    url: publicUrl,
    host: own,
    hosts,
    isAlias(host) {
      if (host === undefined || hosts.size === 1) return false;
      const name = host.toLowerCase();
      return name !== own && hosts.has(name);
    },
  };
}

/** What a client reaching the server by an alias is told, in a 401's description and in the log. */
export function aliasAdvice(origin: PublicOrigin, host: string): string {
  const scheme = new URL(origin.url).protocol;
  return `this server is ${origin.url} (PUBLIC_URL), not ${scheme}//${host}: its OAuth metadata names ${origin.url}, and clients that check it refuse it when called at another address; connect to ${origin.url}`;
}
