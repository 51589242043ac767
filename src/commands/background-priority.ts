// Bulk commands run beside serving nodes: they take the CPU the nodes leave.
import { readdirSync } from 'node:fs';
import { constants, setPriority } from 'node:os';

/**
 * Lowers this process to the lowest CPU priority (nice 19). On Linux the nice value is each thread's,
 * so every thread started so far is lowered (V8's and libuv's ones included); those started later
 * inherit it. Elsewhere, the process's.
 */
export function yieldCpuToServers(): void {
  let threads: number[];
  try {
    threads = readdirSync('/proc/self/task').map(Number);
  } catch {
    threads = [0];
  }
  for (const thread of threads) {
    try {
      setPriority(thread, constants.priority.PRIORITY_LOW);
    } catch {
      // A thread that ended meanwhile.
    }
  }
}
