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
 * least once a second; what is left is written synchronously when the process exits (pino registers the
 * flush with the destination). `fd` is stdout unless a test gives another.
 */
export function logLines(fd = 1): LogLines {
  const sonic = pino.destination({ dest: fd, sync: false, minLength: GATHER_BYTES, maxWrite: MAX_WRITE_BYTES, periodicFlush: FLUSH_MS });
  return {
    write: (line: string) => void sonic.write(line),
    flush: (callback) => sonic.flush(callback),
    flushSync: () => sonic.flushSync(),
    end() {
      const closed = new Promise<void>((resolve) => sonic.once('close', () => resolve()));
      sonic.end();
      return closed;
    },
  };
}
