// How `portico doctor` says what it found: a line per check (status, time, check, what and the fix) and a
// last line that sums them up, or the same as one JSON document with --json.
import { printable, type Output } from '../output.js';
import type { Finding, Status } from './finding.js';
import type { Answer } from './probe.js';

export type Outcome = 'pass' | 'fail' | 'unreachable';

export interface Report {
  url: string;
  budgetSeconds: number;
  outcome: Outcome;
  /** 0 all passed (warnings allowed), 1 a check failed, 2 the URL could not be reached. */
  exitCode: 0 | 1 | 2;
  checks: Finding[];
  /** Every request made, with its status and time (or how it failed), in the order made. */
  requests: { method: string; url: string; status?: number; ms: number; failure?: string }[];
}

export function report(url: string, budgetMs: number, findings: Finding[], answers: Answer[], reached = true): Report {
  const failed = findings.some((f) => f.status === 'fail');
  const outcome: Outcome = !reached ? 'unreachable' : failed ? 'fail' : 'pass';
  const requests = answers.map(({ method, url, status, ms, failure }) => ({ method, url, status, ms, failure: failure && `${failure.message} (${failure.code})` }));
  return { url, budgetSeconds: budgetMs / 1000, outcome, exitCode: outcome === 'unreachable' ? 2 : failed ? 1 : 0, checks: findings, requests };
}

const LABEL: Record<Status, string> = { pass: 'ok', warn: 'warn', fail: 'FAIL', skip: 'skip' };

export const duration = (ms: number | undefined) => (ms === undefined ? '-' : ms < 1000 ? `${ms} ms` : `${(ms / 1000).toFixed(1)} s`);

/** The text form; a deployment that cannot be reached is one line, on `notes` (stderr), as the CLI's other failures. */
export function writeText(result: Report, out: Output, notes: Output): void {
  if (result.outcome === 'unreachable') {
    const [finding] = result.checks;
    notes.line(`portico: ${printable(finding!.message)}; ${printable(finding!.fix ?? '')}`);
    return;
  }
  const width = Math.max(...result.checks.map((f) => f.check.length));
  for (const finding of result.checks) {
    const fix = finding.fix ? `. Fix: ${finding.fix}` : '';
    out.line(`${LABEL[finding.status].padEnd(4)}  ${duration(finding.ms).padStart(7)}  ${finding.check.padEnd(width)}  ${printable(finding.message + fix)}`);
  }
  const count = (status: Status) => result.checks.filter((f) => f.status === status).length;
  const parts = [
    `${count('pass')} passed`,
    count('warn') && `${count('warn')} warning${count('warn') === 1 ? '' : 's'}`,
    count('fail') && `${count('fail')} failed`,
    count('skip') && `${count('skip')} skipped`,
  ];
  out.line(`${result.outcome === 'pass' ? 'ok' : 'failed'}: ${parts.filter(Boolean).join(', ')} (${result.url}, each request within ${result.budgetSeconds} s)`);
}

export function writeJson(result: Report, out: Output): void {
  out.json(result);
}
