// Where a node's log lines go: stdout, written as nginx writes a buffered access log (`buffer=... flush=1s`).
import { hostname } from 'node:os';
import { pino } from 'pino';

/** The fields every line carries (pino's default base, stated so that the access line can carry them too). */
export const LOG_BASE = { pid: process.pid, hostname: hostname() };

/** Lines are gathered before a write: a write a line would cost more than the line. */
const GATHER_BYTES = 4096;
/** The most one write carries when lines have piled up behind a slow one. */
const MAX_WRITE_BYTES = 65536;
/** A quiet moment's lines wait at most this long. */
const FLUSH_MS = 1000;

export interface LogLines extends pino.DestinationStream {
  flush(callback?: (error?: Error) => void): void;
  flushSync(): void;
  /** Writes what is left, then closes the file descriptor (never stdout's or stderr's). */
  end(): Promise<void>;
}

/**
 * Lines gathered to 4 KB and written asynchronously (pino's SonicBoom), never stopping the event loop, at
 * least once a second; what is left is written synchronously when the process exits (a crash, or the
 * end of a SIGTERM's shutdown). `fd` is stdout unless a test gives another.
 *
 * SonicBoom is given Buffers, in its buffer mode. In its string mode it measures the whole pending
 * string at each append, so only small writes stay cheap; writes of 2 KB, handed to libuv's threads on
 * the node's one core, fall behind at some 15,000 lines a second, and the waiting lines live through
 * enough young-generation collections to be promoted: a node at `info` peaked at 170 MB against 150
 * silent. Buffers are only listed until their write, which carries up to 64 KB.
 *
 * The lines of one turn of the event loop are encoded together, at its end: encoding a line on its own
 * (flattening its string, measuring it, copying it, through two calls into C++) cost more than
 * SonicBoom and the writes together (docs/performance.md, "Request logs").
 */
export function logLines(fd = 1): LogLines {
  let gathered = '';
  const handOver = () => {
    if (gathered === '') return;
    const lines = gathered;
    gathered = '';
    sonic.write(Buffer.from(lines) as unknown as string);
  };
  const sonic = pino.destination({ dest: fd, sync: false, minLength: GATHER_BYTES, maxWrite: MAX_WRITE_BYTES, periodicFlush: FLUSH_MS, contentMode: 'buffer' });
  // A crash or process.exit() comes before the turn's end: its lines are written at once, whether pino's
  // own flush at exit (registered with the destination) has already run or not. No 'beforeExit': while
  // lines are gathered, the turn's end is still to run, and the process does not stop.
  const atExit = () => {
    if (gathered === '') return;
    handOver();
    sonic.flushSync();
  };
  process.on('exit', atExit);
  return {
    write(line: string) {
      if (gathered === '') setImmediate(handOver);
      gathered += line;
    },
    flush(callback) {
      handOver();
      sonic.flush(callback);
    },
    flushSync() {
      handOver();
      sonic.flushSync();
    },
    end() {
      handOver();
      process.off('exit', atExit);
      const closed = new Promise<void>((resolve) => sonic.once('close', () => resolve()));
      sonic.end();
      return closed;
    },
  };
}
