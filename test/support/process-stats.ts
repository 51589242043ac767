// What a child process holds, read from Linux /proc: for fault tests that must show bounded resources.
import { readdir, readFile, readlink } from 'node:fs/promises';

/**
 * What the runtime itself adds to a node's resident memory bars, set on Node 20: a node on Node 24 is
 * 12-22 MB larger before it answers anything (its binary maps 54 MB of its own code against 43, its heap
 * and allocator hold a few MB more), so an absolute bar is that much higher there (docs/design.md,
 * "Running"). Bars on growth need none.
 */
export const RUNTIME_ALLOWANCE_MB = Number(process.versions.node.split('.')[0]) >= 24 ? 20 : 0;

/** Resident memory now, in MB. */
export async function residentMb(pid: number): Promise<number> {
  return Number(/^VmRSS:\s+(\d+) kB/m.exec(await readFile(`/proc/${pid}/status`, 'utf8'))![1]) / 1024;
}

/** One reading of the sockets a process holds: every count from the same descriptors, so they add up. */
export interface Sockets {
  /** Every socket descriptor (each links to `socket:[inode]`), whatever its state. */
  total: number;
  /** Established TCP connections accepted on the process's own `port`: its clients' connections. */
  on(port: number): number;
  /** Established TCP connections the process holds to `port` on any host. */
  to(port: number): number;
}

/** The inode of each socket descriptor the process holds (each links to `socket:[inode]`). */
async function socketInodes(pid: number): Promise<string[]> {
  const targets = await Promise.all((await readdir(`/proc/${pid}/fd`)).map((fd) => readlink(`/proc/${pid}/fd/${fd}`).catch(() => '')));
  return targets.flatMap((target) => /^socket:\[(\d+)\]$/.exec(target)?.[1] ?? []);
}

export async function sockets(pid: number): Promise<Sockets> {
  const descriptors = await socketInodes(pid);
  const inodes = new Set(descriptors);
  const port = (address: string) => parseInt(address.split(':')[1]!, 16);
  // The TCP tables come in several reads while they change (every process's connections open and close,
  // TIME_WAIT rows come and go), so a row can come twice or be missed: rows are kept by inode, from two
  // readings of each table.
  const established = new Map<string, { local: number; remote: number }>();
  for (let reading = 0; reading < 2; reading++) {
    for (const table of ['tcp', 'tcp6']) {
      const rows = (await readFile(`/proc/${pid}/net/${table}`, 'utf8').catch(() => '')).split('\n').slice(1);
      for (const row of rows) {
        const columns = row.trim().split(/\s+/);
        // sl local_address rem_address st ... inode: st 01 is ESTABLISHED; ports are hexadecimal.
        if (columns.length > 9 && columns[3] === '01' && inodes.has(columns[9]!)) established.set(columns[9]!, { local: port(columns[1]!), remote: port(columns[2]!) });
      }
    }
  }
  const connections = [...established.values()];
  return {
    total: descriptors.length,
    on: (own) => connections.filter((c) => c.local === own).length,
    to: (remote) => connections.filter((c) => c.remote === remote).length,
  };
}

/** The sockets a process holds open: its descriptors alone, without the TCP tables. */
export const openSockets = async (pid: number): Promise<number> => (await socketInodes(pid)).length;

/** Established TCP connections the process holds to `port` on any host. */
export const connectionsTo = async (pid: number, port: number): Promise<number> => (await sockets(pid)).to(port);

/**
 * The most connections `pid` held to `port` while `work` ran, sampled every 25 ms: a pool's bound is
 * seen during the burst; afterwards, aborted connections are gone whether or not it held.
 */
export async function peakConnectionsDuring<T>(pid: number, port: number, work: Promise<T>): Promise<{ result: T; peak: number }> {
  let done = false;
  let peak = 0;
  const sampling = (async () => {
    while (!done) {
      peak = Math.max(peak, await connectionsTo(pid, port));
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  })();
  const result = await work.finally(() => (done = true));
  await sampling;
  return { result, peak };
}
