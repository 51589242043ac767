// What a check of `portico doctor` concludes, and the phrases the checks share.
import type { Answer } from './probe.js';
import { jsonObject, named } from './gather.js';

export type Status = 'pass' | 'warn' | 'fail' | 'skip';

export interface Finding {
  /** The check's name, the same in every run: `resource /mcp`, `issuer`, `time`. */
  check: string;
  status: Status;
  /** The time of the request the check read (the slowest, when it read several). */
  ms?: number;
  /** What was found. */
  message: string;
  /** What to change, naming the setting or directive; only when something is wrong. */
  fix?: string;
}

/** The slowest of the answers a check read. */
export const slowest = (...answers: (Answer | undefined)[]) => {
  const times = answers.filter((a): a is Answer => a !== undefined).map((a) => a.ms);
  return times.length ? Math.max(...times) : undefined;
};

/** A finding whose problems (if any) make it fail, or pass with `passed`. Fixes are said once each. */
export function verdict(check: string, answers: (Answer | undefined)[], problems: { message: string; fix: string; warn?: boolean }[], passed: string): Finding {
  const ms = slowest(...answers);
  if (!problems.length) return { check, status: 'pass', ms, message: passed };
  const fixes = [...new Set(problems.map((p) => p.fix))];
  return { check, status: problems.every((p) => p.warn) ? 'warn' : 'fail', ms, message: problems.map((p) => p.message).join('; '), fix: fixes.join('; ') };
}

export const skipped = (check: string, message: string): Finding => ({ check, status: 'skip', message });

/**
 * Why `answer` is not a usable JSON document (a failure, a status other than 200, not a JSON object), as
 * a finding, or its object. `route` names what a 404 means for hosts.
 */
export function documentOf(check: string, answer: Answer | undefined, origin: string): { finding: Finding } | { document: Record<string, unknown> } {
  if (!answer) return { finding: skipped(check, 'not asked: an earlier answer did not lead here') };
  const what = named(answer, origin);
  const failed = unanswered(check, answer, origin);
  if (failed) return { finding: failed };
  if (answer.status !== 200) {
    const error = jsonObject(answer.body)?.error;
    const finding: Finding = {
      check,
      status: 'fail',
      ms: answer.ms,
      message: `${what} answers ${answer.status}${typeof error === 'string' ? ` ${error}` : ''}, not 200 with the document`,
      fix: answer.status === 404 ? 'the proxy must pass /.well-known/ to Portico unchanged (deploy/nginx/portico-proxy.conf proxies every path)' : 'see what answers it in the proxy and node logs',
    };
    return { finding };
  }
  const document = jsonObject(answer.body);
  if (document) return { document };
  const contentType = answer.headers['content-type'] ?? 'no content type';
  return {
    finding: { check, status: 'fail', ms: answer.ms, message: `${what} answers 200 with no JSON object (${contentType})`, fix: 'the proxy must pass the path to Portico and not answer it itself' },
  };
}

/** A finding for a request that got no answer, or undefined when it got one. */
export function unanswered(check: string, answer: Answer, origin: string): Finding | undefined {
  if (!answer.failure) return undefined;
  const what = named(answer, origin);
  if (answer.failure.kind === 'timeout') return { check, status: 'fail', ms: answer.ms, message: `${what}: ${answer.failure.message}`, fix: 'see the time check' };
  return { check, status: 'fail', ms: answer.ms, message: `${what}: ${answer.failure.message} (${answer.failure.code})`, fix: 'see what cut it in the proxy and node logs' };
}

/** A string list, or undefined when the field is not one. */
export function stringList(value: unknown): string[] | undefined {
  return Array.isArray(value) && value.every((item) => typeof item === 'string') ? value : undefined;
}
