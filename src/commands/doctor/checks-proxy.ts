// Behind a proxy: the answers show whether something between the host and the nodes rewrote the scheme or
// the host. Portico takes every URL it publishes from PUBLIC_URL, never from the request, so a published URL
// on another origin is PUBLIC_URL's doing; a Host the nodes refuse is the proxy's; and an https answer
// without Strict-Transport-Security, which a node sends over https only, means the nodes took the request
// for plain http: the proxy did not say the scheme, or the nodes do not trust it.
import { skipped, slowest, type Finding } from './finding.js';
import { challengeParameters, jsonObject, toolsOf, type Observations } from './gather.js';
import type { Answer } from './probe.js';
import { refusedHost } from './checks-mcp.js';
import { publicUrlFix } from './checks-metadata.js';
import { isLoopback } from '../../config/values.js';

const DEFAULT_PUBLIC_URL = /^http:\/\/localhost:\d+$/;
const AND = new Intl.ListFormat('en', { type: 'conjunction' });

/** Every absolute URL the deployment published in the answers read: the resources, the issuer, the endpoints, the challenge's. */
function publishedUrls(seen: Observations): string[] {
  const urls: unknown[] = [];
  for (const answer of [seen.resources?.root, seen.resources?.mcp, seen.resources?.contact]) {
    const document = answer?.status === 200 ? jsonObject(answer.body) : undefined;
    if (!document) continue;
    urls.push(document.resource);
    if (Array.isArray(document.authorization_servers)) urls.push(...(document.authorization_servers as unknown[]));
  }
  const server = seen.authorizationServer?.status === 200 ? jsonObject(seen.authorizationServer.body) : undefined;
  if (server) urls.push(server.issuer, server.authorization_endpoint, server.token_endpoint, server.registration_endpoint, server.revocation_endpoint);
  urls.push(challengeParameters(seen.challenge?.headers['www-authenticate'])?.resource_metadata);
  return urls.filter((url): url is string => typeof url === 'string' && URL.canParse(url));
}

/** An answer of /mcp only a node gives: its challenge, its list of tools, or its refusal of the Host. */
const fromNode = (answer: Answer): boolean =>
  answer.failure === undefined &&
  ((answer.status === 401 && challengeParameters(answer.headers['www-authenticate']) !== undefined) || (answer.status === 200 && toolsOf(answer) !== undefined) || refusedHost(answer) !== undefined);

export function proxy(seen: Observations): Finding {
  const check = 'proxy';
  const { target } = seen;
  const published = publishedUrls(seen);
  // Only what came back as a node's answer tells anything of the way: a request that timed out or was cut
  // says nothing, nor does a redirect, an error page or a body that could not be read.
  const mcpAnswers = [seen.challenge, seen.toolsList?.['2025-11-25'], seen.toolsList?.['2026-07-28']].filter((a): a is Answer => a !== undefined && fromNode(a));
  if (!published.length && !mcpAnswers.length) return skipped(check, 'no answer to read');
  const ms = slowest(seen.resources?.root, seen.authorizationServer, ...mcpAnswers);
  const elsewhere = published.find((url) => new URL(url).origin !== target.origin);
  if (elsewhere) {
    const url = new URL(elsewhere);
    const given = new URL(target.base);
    const origin = url.origin;
    let message: string;
    if (url.protocol === 'http:' && given.protocol === 'https:' && url.hostname === given.hostname) {
      message = `the answers name ${origin}, plain http behind ${target.origin}: the nodes' PUBLIC_URL is http://, and hosts refuse every document`;
    } else if (DEFAULT_PUBLIC_URL.test(origin) && !target.loopback) {
      message = `the answers name ${origin}: PUBLIC_URL is not set on the nodes (it defaults to http://localhost:PORT)`;
    } else if (isLoopback(url.hostname) && !target.loopback) {
      message = `the answers name ${origin}, the node's own address, not ${target.origin}: PUBLIC_URL names the node, not the address hosts use`;
    } else {
      message = `the answers name ${origin}, not ${target.origin}: the nodes' PUBLIC_URL is another address than the one hosts are given`;
    }
    return { check, status: 'fail', ms, message, fix: publicUrlFix(target) };
  }
  const refused = mcpAnswers.map(refusedHost).find((host) => host !== undefined);
  if (refused !== undefined) {
    const given = new URL(target.base);
    const droppedPort = given.port && refused === given.hostname;
    return {
      check,
      status: 'fail',
      ms,
      message: `/mcp refuses the requests: they reached the nodes with Host ${refused || '(none)'}, not ${given.host} (DNS-rebinding defence)`,
      fix: `the proxy must pass the Host the client used: nginx "proxy_set_header Host $http_host;" as deploy/nginx/portico-proxy.conf has it${droppedPort ? ' ($host drops the port)' : ''}`,
    };
  }
  const root = seen.resources?.root;
  const https = target.base.startsWith('https:');
  if (https && root?.status === 200 && root.headers['strict-transport-security'] === undefined) {
    return {
      check,
      status: 'fail',
      ms,
      message: 'the nodes took these https requests for plain http: the answers carry no Strict-Transport-Security, which a node sends over https only',
      fix: 'the proxy must say the scheme and the nodes believe it: nginx "proxy_set_header X-Forwarded-Proto $scheme;" as deploy/nginx/portico-proxy.conf has it, and TRUST_PROXY on every node (1 behind one proxy)',
    };
  }
  // The pass says only what the answers showed.
  const shown: string[] = [];
  if (published.length) shown.push(`every URL the answers name is on ${target.origin}`);
  if (mcpAnswers.length) shown.push('/mcp accepts the Host hosts send');
  if (root?.status === 200) shown.push(`the nodes know the requests came over ${https ? 'https' : 'http'}`);
  return { check, status: 'pass', ms, message: `${AND.format(shown)}: nothing rewritten on the way` };
}
