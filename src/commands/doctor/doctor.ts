// `portico doctor [URL]`: a running deployment looked at from the outside, as an MCP host looks at it.
import { originOf } from '../../config/values.js';
import { systemClock, type Clock } from '../../ports/clock.js';
import { CliError, type Output } from '../output.js';
import { checks } from './checks.js';
import { unreachable } from './checks-transport.js';
import { answered, gather } from './gather.js';
import { prober } from './probe.js';
import { report, writeJson, writeText, type Report } from './report.js';
import { parseTarget } from './urls.js';

/** MCP hosts give discovery, registration and token requests about 10 s. */
export const HOST_BUDGET_SECONDS = 10;

export interface DoctorOptions {
  json?: boolean;
  /** Origins whose pages post to /api/contact (repeatable --origin). */
  origin?: string[];
  /** Each request's budget in seconds, as given on the command line. */
  timeout?: string;
}

/** Runs every check against `url` and prints them; resolves to the exit code (0, 1, or 2 when unreachable). */
export async function doctor(url: string, options: DoctorOptions, out: Output, notes: Output, clock: Clock = systemClock): Promise<Report['exitCode']> {
  const target = parseTarget(url);
  const budgetMs = budget(options.timeout);
  const origins = (options.origin ?? []).map(parseOrigin);
  const probe = prober(budgetMs);
  try {
    const seen = await gather(target, probe, budgetMs, origins);
    const reached = answered(seen.first);
    const result = report(target.base, budgetMs, reached ? checks(seen, clock.now()) : [unreachable(seen)], seen.answers, reached);
    if (options.json) writeJson(result, out);
    else writeText(result, out, notes);
    return result.exitCode;
  } finally {
    probe.close();
  }
}

function budget(raw: string | undefined): number {
  if (raw === undefined) return HOST_BUDGET_SECONDS * 1000;
  const seconds = Number(raw);
  if (!/^\d+(\.\d+)?$/.test(raw) || seconds <= 0 || seconds > 60) throw new CliError(`doctor: --timeout must be a number of seconds above 0 and at most 60 (got "${raw}")`);
  return Math.round(seconds * 1000);
}

/** An origin as CONTACT_ALLOWED_ORIGINS takes it: scheme, host and port, nothing more. */
function parseOrigin(raw: string): string {
  const origin = originOf(raw);
  if (origin === undefined) throw new CliError(`doctor: --origin must be an origin such as https://www.example.com (got "${raw}")`);
  return origin;
}
