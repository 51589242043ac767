// A connection reset on loopback before the node serves: the first reset V8 sees comes before any
// request path is optimized, not in the middle of the first load.
import { connect, createServer } from 'node:net';

/** Long enough for loopback; a machine that cannot do it in this time starts anyway. */
const GIVE_UP_MS = 1_000;

/**
 * Resets one loopback connection and lets node:net handle the reset as it would a client's. Reading
 * the first socket error's stack (node:internal/streams/destroy does) changes a field of the error's
 * V8 map from constant to mutable, which throws away all the optimized code that relied on it: some 30
 * stream and HTTP functions at once. When that happens under load, the code V8 then builds again can
 * stay on its slow paths for the life of the process (object literals defined by the runtime, missed
 * inline caches): discovery at 0.75 of its rate, in 5 of 5 silent processes started with `npm start`'s
 * flags whose first reset came after the warm-up; with this, 0 of 5 silent and 1 of 5 at `info`
 * (docs/performance.md, "A first reset at start"). Never fails: it only prepares the engine.
 */
export async function resetOneConnection(): Promise<void> {
  let closed = () => {};
  const done = new Promise<void>((resolve) => {
    closed = resolve;
    setTimeout(resolve, GIVE_UP_MS).unref();
  });
  const server = createServer((socket) => socket.on('error', () => {}).once('close', closed));
  try {
    await new Promise<void>((resolve, reject) => server.once('error', reject).listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as { port: number };
    const client = connect(port, '127.0.0.1');
    client.on('error', () => {});
    client.once('connect', () => client.resetAndDestroy());
    await done;
  } catch {
    // No loopback: the node serves all the same.
  } finally {
    server.close();
  }
}
