// Browsers: a host that runs in a page (an MCP inspector, a web client) reads the discovery documents from
// another origin, and the site's own pages post inquiries to /api/contact; both need CORS preflights
// answered (Fetch standard, "CORS protocol").
import { skipped, slowest, type Finding } from './finding.js';
import { FOREIGN_ORIGIN, named, type Observations } from './gather.js';
import type { Answer } from './probe.js';

/** What is wrong with a preflight's answer for `origin`, `method` and `header`, or undefined. */
function preflightProblem(answer: Answer, origin: string, method: string, header?: string): string | undefined {
  if (answer.failure) return answer.failure.message;
  if (answer.status! < 200 || answer.status! >= 300) return `answers ${answer.status}`;
  const allowed = answer.headers['access-control-allow-origin'];
  if (allowed !== '*' && allowed !== origin) return allowed === undefined ? `allows no origin (no Access-Control-Allow-Origin for ${origin})` : `allows ${allowed}, not ${origin}`;
  const methods = (answer.headers['access-control-allow-methods'] ?? '').toUpperCase().split(/\s*,\s*/);
  if (!methods.includes(method) && !methods.includes('*')) return `allows the methods ${answer.headers['access-control-allow-methods'] ?? '(none)'}, not ${method}`;
  const headers = (answer.headers['access-control-allow-headers'] ?? '').toLowerCase().split(/\s*,\s*/);
  if (header && !headers.includes(header) && !headers.includes('*')) return `allows the headers ${answer.headers['access-control-allow-headers'] ?? '(none)'}, not ${header}`;
  return undefined;
}

/** The four discovery documents answer a preflight from any origin. */
export function discoveryCors(seen: Observations): Finding {
  const check = 'cors discovery';
  const answers = seen.discoveryPreflights ?? [];
  if (!answers.length) return skipped(check, 'not asked');
  const problems = answers.flatMap((answer) => {
    const problem = preflightProblem(answer, FOREIGN_ORIGIN, 'GET');
    return problem ? [`OPTIONS ${named(answer, seen.target.origin).slice('OPTIONS '.length)} ${problem}`] : [];
  });
  const ms = slowest(...answers);
  if (problems.length) {
    return {
      check,
      status: 'fail',
      ms,
      message: `${problems.join('; ')}: a host in a browser page cannot read the metadata`,
      fix: 'the proxy must pass OPTIONS to Portico and keep its Access-Control-* headers (no CORS rules of its own on these paths)',
    };
  }
  return {
    check,
    status: 'pass',
    ms,
    message: `the ${answers.length} discovery documents answer a preflight from ${FOREIGN_ORIGIN} (Access-Control-Allow-Origin: ${answers[0]!.headers['access-control-allow-origin']})`,
  };
}

/** /api/contact answers a preflight from each site given with --origin (CONTACT_ALLOWED_ORIGINS). */
export function contactCors(seen: Observations): Finding[] {
  const preflights = seen.contactPreflights ?? [];
  if (!preflights.length) return [skipped('cors /api/contact', 'no --origin given: name each site whose pages post to /api/contact, as CONTACT_ALLOWED_ORIGINS lists them')];
  return preflights.map(({ origin, answer }) => {
    const check = `cors /api/contact ${origin}`;
    const problem = preflightProblem(answer, origin, 'POST', 'content-type');
    if (!problem) return { check, status: 'pass', ms: answer.ms, message: `OPTIONS /api/contact from ${origin}: ${answer.status}, POST with Content-Type allowed` };
    const refused = !answer.failure && answer.status! < 300 && answer.headers['access-control-allow-origin'] === undefined;
    return {
      check,
      status: 'fail',
      ms: answer.ms,
      message: `OPTIONS /api/contact from ${origin} ${problem}: the form on ${origin} cannot send`,
      fix: refused ? `add ${origin} to CONTACT_ALLOWED_ORIGINS on every node (comma-separated origins)` : 'the proxy must pass OPTIONS /api/contact to Portico and keep its Access-Control-* headers',
    };
  });
}
