// What a child process holds, read from Linux /proc: for fault tests that must show bounded resources.
import { readdir, readFile, readlink } from 'node:fs/promises';

/** The sockets a process holds open (each descriptor of a socket links to `socket:[inode]`). */
export async function openSockets(pid: number): Promise<number> {
  const targets = await Promise.all((await readdir(`/proc/${pid}/fd`)).map((fd) => readlink(`/proc/${pid}/fd/${fd}`).catch(() => '')));
  return targets.filter((target) => target.startsWith('socket:')).length;
}

/** Resident memory now, in MB. */
export async function residentMb(pid: number): Promise<number> {
  return Number(/^VmRSS:\s+(\d+) kB/m.exec(await readFile(`/proc/${pid}/status`, 'utf8'))![1]) / 1024;
}

/** Established TCP connections the process holds to `port` on any host (Linux /proc/PID/net/tcp*). */
export function connectionsTo(pid: number, port: number): Promise<number> {
  return establishedConnections(pid, (_local, remote) => remote === port);
}

/** Established TCP connections accepted on the process's own `port`: its clients' connections. */
export function connectionsOn(pid: number, port: number): Promise<number> {
  return establishedConnections(pid, (local) => local === port);
}

async function establishedConnections(pid: number, matches: (localPort: number, remotePort: number) => boolean): Promise<number> {
  const inodes = new Set<string>();
  for (const fd of await readdir(`/proc/${pid}/fd`)) {
    const match = /^socket:\[(\d+)\]$/.exec(await readlink(`/proc/${pid}/fd/${fd}`).catch(() => ''));
    if (match) inodes.add(match[1]!);
  }
  const port = (address: string) => parseInt(address.split(':')[1]!, 16);
  let count = 0;
  for (const table of ['tcp', 'tcp6']) {
    const rows = (await readFile(`/proc/${pid}/net/${table}`, 'utf8').catch(() => '')).split('\n').slice(1);
    for (const row of rows) {
      const columns = row.trim().split(/\s+/);
      // sl local_address rem_address st ... inode: st 01 is ESTABLISHED; ports are hexadecimal.
      if (columns.length > 9 && columns[3] === '01' && inodes.has(columns[9]!) && matches(port(columns[1]!), port(columns[2]!))) count++;
    }
  }
  return count;
}

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
