// Reachability, TLS and time: what a host meets before it reads a single document.
import { unanswered, type Finding } from './finding.js';
import { named, type Observations } from './gather.js';
import type { Answer, Failure } from './probe.js';

const DAY_MS = 86_400_000;
/** A certificate that expires sooner is worth a warning: a renewal that failed has this long to be noticed. */
export const EXPIRY_WARNING_DAYS = 14;

/** What to look at when a request took its connection and got no whole answer in time. */
export const STALLED_FIX = 'find what holds it: the proxy (its error log, proxy_read_timeout), the node (its log, its load), the database (portico check on the node)';

/**
 * The one line said when the first request got no answer at all (exit 2): no connection, no TLS session
 * (a refused handshake or certificate, or none in time), nothing said within the budget, or no HTTP.
 */
export function unreachable(seen: Observations): Finding {
  const { first, target } = seen;
  const { message, fix } = noAnswer(first.failure!, new URL(target.given), seen.budgetMs / 1000);
  return { check: 'reach', status: 'fail', ms: first.ms, message: `cannot reach ${target.base}: ${message}`, fix };
}

function noAnswer(failure: Failure, { host, hostname }: URL, seconds: number): { message: string; fix: string } {
  if (failure.kind === 'tls') return tlsProblem(failure, host, hostname);
  if (failure.kind === 'timeout') return { message: `${host} took the connection but sent no answer within ${seconds} s`, fix: STALLED_FIX };
  if (failure.kind === 'broken' && failure.code !== 'ECONNRESET') {
    return { message: `${host} sent no HTTP answer: ${failure.message} (${failure.code})`, fix: 'point doctor at Portico or the proxy in front of it: what listens there does not speak HTTP' };
  }
  const why: Record<string, string> = {
    ECONNREFUSED: `connection refused: nothing listens on ${host}`,
    ENOTFOUND: `no such host: ${hostname} does not resolve`,
    EAI_AGAIN: `${hostname} does not resolve now (DNS)`,
    EHOSTUNREACH: `no route to ${host}`,
    ENETUNREACH: `no route to ${host}`,
    ETIMEDOUT: `${failure.message}: a firewall may drop the packets`,
    ECONNRESET: 'the connection was reset before any answer',
  };
  return {
    message: why[failure.code] ?? `${failure.message} (${failure.code})`,
    fix: 'start Portico (portico serve) and the proxy in front of it, or give doctor the address hosts use',
  };
}

/** The first request answered; when not whole, the finding its failure gives, whose fix names the check that says more. */
export function reach(seen: Observations): Finding {
  const { first, target } = seen;
  return unanswered('reach', first, target.origin) ?? { check: 'reach', status: 'pass', ms: first.ms, message: `${target.base} answers (${named(first, target.origin)}: ${first.status})` };
}

/**
 * https with a certificate valid for the host (Node checks it, with NODE_EXTRA_CA_CERTS for a private CA),
 * a warning when it expires within 14 days; plain http only on loopback, where hosts allow it.
 */
export function transportSecurity(seen: Observations, now: number): Finding {
  const { target, first } = seen;
  const host = new URL(target.given).hostname;
  if (!target.https) {
    if (target.loopback)
      return { check: 'https', status: 'pass', ms: first.ms, message: `plain http on loopback (${host}): hosts accept it here only, for a trial on this machine; anywhere else they need https` };
    return {
      check: 'https',
      status: 'fail',
      ms: first.ms,
      message: `plain http to ${host}: MCP hosts refuse http for any host but loopback, and tokens and inquiries would cross the network in clear`,
      fix: `serve it over https through a TLS proxy (docs/deploy.md, "nginx") and set PUBLIC_URL=https://${new URL(target.given).host}${new URL(target.base).pathname.replace(/^\/$/, '')}`,
    };
  }
  const certificate = seen.answers.find((a) => a.certificate)?.certificate;
  if (!certificate) return { check: 'https', status: 'skip', message: 'no TLS connection completed, so no certificate to read' };
  const days = Math.floor((certificate.validTo - now) / DAY_MS);
  const until = new Date(certificate.validTo).toISOString().slice(0, 10);
  const about = `certificate for ${certificate.subject || host} from ${certificate.issuer || 'an unnamed issuer'}, valid for ${host} until ${until}`;
  if (days < EXPIRY_WARNING_DAYS) {
    return {
      check: 'https',
      status: 'warn',
      ms: first.ms,
      message: `${about}: expires in ${days} day${days === 1 ? '' : 's'}`,
      fix: 'renew it now (certbot renew, or your provider) and reload the proxy',
    };
  }
  return { check: 'https', status: 'pass', ms: first.ms, message: `${about} (${days} days left)` };
}

/** What a failed TLS session says; `host` with its port, `hostname` as the certificate must name it. */
function tlsProblem(failure: Failure, host: string, hostname: string): { message: string; fix: string } {
  const { code, message } = failure;
  if (code === 'ERR_TLS_CERT_ALTNAME_INVALID')
    return { message: `the certificate is not valid for ${hostname}: ${message}`, fix: `serve a certificate that names ${hostname} (ssl_certificate in the server block)` };
  if (code === 'CERT_HAS_EXPIRED') return { message: 'the certificate has expired', fix: 'renew it (certbot renew, or your provider) and reload the proxy' };
  if (/SELF_SIGNED|UNABLE_TO_GET_ISSUER|UNABLE_TO_VERIFY_LEAF/.test(code)) {
    return {
      message: `the certificate is not signed by an authority this machine trusts (${code})`,
      fix: 'serve the whole chain (fullchain.pem, not cert.pem); for a private CA, run doctor with NODE_EXTRA_CA_CERTS=ca.pem (hosts on the internet accept only public CAs)',
    };
  }
  if (code === 'ETIMEDOUT') return { message: `${host} took the connection, but ${message}`, fix: 'put the TLS proxy on this port, or see its error log for the handshake' };
  if (/wrong version number|WRONG_VERSION/i.test(`${code} ${message}`))
    return { message: `${hostname} answers plain http on this port, not TLS`, fix: 'use http:// for a loopback trial, or put the TLS proxy on this port' };
  return { message: `TLS failed: ${message} (${code})`, fix: 'see the proxy error log for the handshake' };
}

/**
 * Every request answered whole within the budget: hosts give discovery, registration and token requests
 * about 10 s, and a host that gives up shows its user only a vague error.
 */
export function time(seen: Observations): Finding {
  const { answers, budgetMs, target } = seen;
  const budget = `${budgetMs / 1000} s`;
  const late = answers.filter((a) => a.failure?.kind === 'timeout' || a.failure?.code === 'ETIMEDOUT');
  if (late.length) {
    return {
      check: 'time',
      status: 'fail',
      ms: Math.max(...late.map((a) => a.ms)),
      message: `${late.map((a) => named(a, target.origin)).join(', ')}: no answer within ${budget}, where MCP hosts give up`,
      fix: STALLED_FIX,
    };
  }
  const top = answers.reduce<Answer>((a, b) => (b.ms > a.ms ? b : a), answers[0]!);
  return { check: 'time', status: 'pass', ms: top.ms, message: `${answers.length} requests, each answered within ${budget}; the slowest ${top.ms} ms (${named(top, target.origin)})` };
}
