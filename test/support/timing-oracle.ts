// Whether an anonymous caller can tell, from the answer's time alone, an inquiry that went out from one
// screening kept back (a duplicate, spam): for test/long/screening-timing.test.ts and the bench's hostile
// scenario. The caller learns on some of each, then judges more with the best threshold it learned.
import { inquiry } from './app.js';

type Kind = 'new' | 'kept back';

interface Timed {
  kind: Kind;
  ms: number;
}

export interface TimingOracle {
  /** Of `judged`, how many the caller's rule told apart. */
  correct: number;
  judged: number;
  /** The median answer time of each kind among the judged, in ms. */
  medianMs: Record<Kind, number>;
}

/** The caller's best rule from what it learned: the threshold on the answer's time, and its side, that tells the most of `learned` apart. */
function bestThreshold(learned: readonly Timed[]): (ms: number) => Kind {
  let best = { correct: -1, rule: (_ms: number): Kind => 'new' };
  for (const { ms: threshold } of learned) {
    for (const fastIs of ['new', 'kept back'] as const) {
      const slowIs: Kind = fastIs === 'new' ? 'kept back' : 'new';
      const rule = (ms: number): Kind => (ms <= threshold ? fastIs : slowIs);
      const correct = learned.filter((t) => rule(t.ms) === t.kind).length;
      if (correct > best.correct) best = { correct, rule };
    }
  }
  return best.rule;
}

/**
 * Sends anonymous inquiries to `baseUrl`'s POST /api/contact, one at a time, half of them new and half kept
 * back (alternately a duplicate of one sent first and one with `blockedTerm`, which the node must hold), in
 * random order; learns on `learn`, judges `judge`. Each must be answered 200 `{"ok":true}`.
 */
export async function tellApartByTime(baseUrl: string, options: { blockedTerm: string; learn: number; judge: number }): Promise<TimingOracle> {
  const original = { email: 'again@example.com', message: 'We manage 40 buildings and would like a demo.' };
  let sent = 0;
  const post = async (body: object) => {
    const started = performance.now();
    const response = await fetch(`${baseUrl}/api/contact`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    const ms = performance.now() - started;
    const answer = await response.text();
    if (response.status !== 200 || answer !== '{"ok":true}') throw new Error(`the inquiry was answered ${response.status} ${answer}`);
    return ms;
  };
  const timed = async (kind: Kind): Promise<Timed> => {
    const n = ++sent;
    const body =
      kind === 'new'
        ? inquiry({ email: `lead-${n}@example.com`, message: `We manage ${n} buildings and would like a demo.` })
        : n % 2
          ? inquiry(original)
          : inquiry({ email: `lead-${n}@example.com`, message: `Win at the ${options.blockedTerm}, ${n} times.` });
    return { kind, ms: await post(body) };
  };
  const round = async (count: number) => {
    const kinds = Array.from({ length: count }, (_, i): Kind => (i % 2 ? 'new' : 'kept back')).sort(() => Math.random() - 0.5);
    const results: Timed[] = [];
    for (const kind of kinds) results.push(await timed(kind));
    return results;
  };
  await post(inquiry(original));
  const tellApart = bestThreshold(await round(options.learn));
  const judged = await round(options.judge);
  const median = (kind: Kind) => {
    const times = judged.filter((t) => t.kind === kind).map((t) => t.ms);
    return times.sort((a, b) => a - b)[Math.floor(times.length / 2)]!;
  };
  return { correct: judged.filter((t) => tellApart(t.ms) === t.kind).length, judged: judged.length, medianMs: { new: median('new'), 'kept back': median('kept back') } };
}
