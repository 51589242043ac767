// The discovery documents as hosts read them: RFC 9728 protected-resource metadata, RFC 8414
// authorization-server metadata, and the rules MCP 2026-07-28's authorization section adds.
import { documentOf, skipped, stringList, verdict, type Finding } from './finding.js';
import { jsonObject, named, type Observations } from './gather.js';
import type { Answer } from './probe.js';
import { baseOf, difference, differenceInWords, shortUrl, type Target } from './urls.js';

type Problem = { message: string; fix: string; warn?: boolean };

/** The fix for a published URL that is not the one hosts are given: Portico builds every URL it publishes from PUBLIC_URL. */
export const publicUrlFix = (target: Target, published?: string) =>
  `set PUBLIC_URL=${target.base} on every node${published ? ` (it is ${published} now)` : ''}: Portico builds every URL it publishes from PUBLIC_URL`;

/**
 * RFC 9728 section 3.3: `resource` must be identical to the URL the host derived the metadata URL from,
 * else the host must not use the document; `authorization_servers` names the issuer, and `scopes_supported`
 * the scopes a host may ask for (MCP 2026-07-28, "Scope Selection Strategy").
 */
export function resourceMetadata(seen: Observations, path: '' | '/mcp' | '/api/contact'): Finding {
  const check = `resource ${path || '/'}`;
  const { target } = seen;
  const answer = path === '' ? seen.resources?.root : path === '/mcp' ? seen.resources?.mcp : seen.resources?.contact;
  const read = documentOf(check, answer, target.origin);
  if ('finding' in read) return read.finding;
  const document = read.document;
  const expected = path ? `${target.base}${path}` : target.given;
  // The root as it was typed, but `https://a.example/` reads as PUBLIC_URL would name it.
  const shown = path || new URL(target.given).pathname !== '/' ? expected : target.base;
  const problems: Problem[] = [];
  const resource = document.resource;
  const differs = difference(expected, resource);
  if (differs === 'not a URL') problems.push({ message: 'resource is missing or not a URL', fix: publicUrlFix(target) });
  else if (differs === 'trailing slash') problems.push(trailingSlash(target, expected, String(resource)));
  else if (differs)
    problems.push({
      message: `resource is ${String(resource)}, not ${shown} (${differenceInWords(differs)}): hosts refuse the document`,
      fix: publicUrlFix(target, baseOf(String(resource), path)),
    });
  const servers = stringList(document.authorization_servers);
  if (!servers?.length) problems.push({ message: 'authorization_servers is missing: hosts cannot find where to get a token', fix: publicUrlFix(target) });
  else if (!servers.includes(target.base)) problems.push({ message: `authorization_servers names ${servers.join(', ')}, not the issuer ${target.base}`, fix: publicUrlFix(target, servers[0]) });
  const scopes = stringList(document.scopes_supported);
  if (!scopes?.length) problems.push({ message: 'scopes_supported is missing: hosts cannot tell which scope to ask for', fix: 'the proxy must pass the document from Portico as it is' });
  return verdict(check, [answer], problems, `resource ${String(resource)}, authorization server ${servers?.join(', ')}, scopes ${scopes?.join(' ')}`);
}

function trailingSlash(target: Target, expected: string, resource: string): Problem {
  const given = target.given.endsWith('/') && !resource.endsWith('/');
  return {
    message: `resource is ${resource}, not ${expected}: they differ by a trailing slash, and hosts compare them character for character`,
    fix: given ? `give hosts ${target.base}/mcp, without the trailing slash, as PUBLIC_URL names it` : publicUrlFix(target),
  };
}

/** The authorization server's metadata: every check reads the same document. */
export function authorizationServer(seen: Observations): Finding[] {
  const { target } = seen;
  const answer = seen.authorizationServer;
  const read = documentOf('issuer', answer, target.origin);
  if ('finding' in read) {
    const rest = ['pkce', 'iss parameter', 'client id documents', 'registration', 'endpoints'].map((check) => skipped(check, 'no authorization-server metadata to read'));
    return [read.finding, ...rest];
  }
  const document = read.document;
  const one = (check: string, problems: Problem[], passed: string) => verdict(check, [answer], problems, passed);
  const methods = stringList(document.code_challenge_methods_supported) ?? [];
  const auth = stringList(document.token_endpoint_auth_methods_supported) ?? [];
  const cimd = document.client_id_metadata_document_supported === true;
  // Identical strings (RFC 8414 section 3.3): `https://a.example/` is not the issuer `https://a.example`.
  const issuerDiffers = typeof document.issuer === 'string' && document.issuer.replace(/\/$/, '') === target.base ? 'trailing slash' : difference(target.base, document.issuer);
  return [
    // RFC 8414 section 3.3: the issuer must be identical to the one the metadata URL was formed from.
    one(
      'issuer',
      document.issuer === target.base
        ? []
        : [
            {
              message: `issuer is ${JSON.stringify(document.issuer)}, not ${target.base}${issuerDiffers ? ` (${differenceInWords(issuerDiffers)})` : ''}: hosts refuse the metadata`,
              fix: publicUrlFix(target, typeof document.issuer === 'string' ? document.issuer : undefined),
            },
          ],
      `issuer ${target.base}, at ${shortUrl(answer!.url, target.origin)}`,
    ),
    // MCP authorization: hosts refuse an authorization server that does not offer PKCE with S256.
    one(
      'pkce',
      methods.includes('S256')
        ? []
        : [
            {
              message: `code_challenge_methods_supported is ${JSON.stringify(document.code_challenge_methods_supported)}, without S256: hosts refuse the server`,
              fix: 'the proxy must pass the document from Portico as it is (Portico offers S256)',
            },
          ],
      'PKCE with S256 offered',
    ),
    // RFC 9207: without iss in the authorization response a host cannot tell this server's answers from another's.
    one(
      'iss parameter',
      document.authorization_response_iss_parameter_supported === true
        ? []
        : [
            {
              message: 'authorization_response_iss_parameter_supported is not true: hosts cannot check who answered (RFC 9207)',
              fix: 'the proxy must pass the document from Portico as it is',
              warn: true,
            },
          ],
      'the authorization response names its issuer (RFC 9207)',
    ),
    // MCP 2026-07-28: a host identifies itself by its metadata document only when the server advertises them
    // and accepts `none` at the token endpoint; otherwise it registers, again at every connection.
    one(
      'client id documents',
      cimd && auth.includes('none')
        ? []
        : [
            {
              message: `${cimd ? 'token_endpoint_auth_methods_supported lacks none' : 'client_id_metadata_document_supported is not advertised'}: Claude will register a new client on every connection`,
              fix: cimd ? 'the proxy must pass the document from Portico as it is' : 'set CIMD=on (the default) on every node; with CIMD_ALLOWED_HOSTS, list claude.ai, chatgpt.com and vscode.dev',
              warn: true,
            },
          ],
      'Client ID Metadata Documents with public clients (none): Claude, ChatGPT and VS Code connect without registering',
    ),
    one(
      'registration',
      typeof document.registration_endpoint === 'string'
        ? []
        : [
            {
              message: 'no registration_endpoint: hosts without a Client ID Metadata Document (Cursor, mcp-remote) cannot register',
              fix: 'the proxy must pass the document from Portico as it is',
              warn: cimd,
            },
          ],
      `dynamic registration at ${typeof document.registration_endpoint === 'string' ? shortUrl(document.registration_endpoint, target.origin) : ''}`,
    ),
    one('endpoints', endpointProblems(document, target), `authorization, token, registration and revocation endpoints on ${target.origin}`),
  ];
}

/** Every endpoint on the issuer's origin: a host sends its code and tokens where the metadata says, nowhere else. */
function endpointProblems(document: Record<string, unknown>, target: Target): Problem[] {
  const problems: Problem[] = [];
  for (const name of ['authorization_endpoint', 'token_endpoint', 'registration_endpoint', 'revocation_endpoint']) {
    const value = document[name];
    if (value === undefined && (name === 'registration_endpoint' || name === 'revocation_endpoint')) continue;
    if (typeof value !== 'string') problems.push({ message: `${name} is missing`, fix: 'the proxy must pass the document from Portico as it is' });
    else if (!value.startsWith(`${target.origin}/`)) problems.push({ message: `${name} is ${value}, not on ${target.origin}`, fix: publicUrlFix(target) });
  }
  return problems;
}

/**
 * The token and registration endpoints answer in time: asked to refuse (an unknown client; a registration
 * with no redirect URIs), they say why in an OAuth error, and nothing is stored.
 */
export function endpointAnswers(seen: Observations): Finding[] {
  return [endpointAnswer('token endpoint', 'token_endpoint', seen.token, seen), endpointAnswer('registration endpoint', 'registration_endpoint', seen.registration, seen)];
}

function endpointAnswer(check: string, field: string, answer: Answer | undefined, seen: Observations): Finding {
  if (!answer) {
    const metadata = seen.authorizationServer?.status === 200 ? jsonObject(seen.authorizationServer.body) : undefined;
    const why = !metadata ? 'no authorization-server metadata to read' : typeof metadata[field] === 'string' ? `${field} is on another origin (see endpoints)` : `the metadata names no ${field}`;
    return skipped(check, `not asked: ${why}`);
  }
  const what = named(answer, seen.target.origin);
  if (answer.failure)
    return { check, status: 'fail', ms: answer.ms, message: `${what}: ${answer.failure.message}`, fix: answer.failure.kind === 'timeout' ? 'see the time check' : 'see the proxy and node logs' };
  const error = jsonObject(answer.body)?.error;
  if (answer.status! >= 500 || typeof error !== 'string') {
    return { check, status: 'fail', ms: answer.ms, message: `${what} answers ${answer.status} without an OAuth error body`, fix: 'the proxy must pass the endpoint to Portico; see the node log' };
  }
  return { check, status: 'pass', ms: answer.ms, message: `${what} answers a request it must refuse: ${answer.status} ${error} (nothing stored)` };
}
