// The machine's Redis for the suites that share counters (127.0.0.1:6379): whether it answers, and
// removing what a run left under its key prefix. With no server the suites say they are skipped.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { Redis } from 'ioredis';

export const MACHINE_REDIS = process.env.PORTICO_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

/** True when a Redis at `url` answers PING within half a second. */
export async function answersPing(url: string): Promise<boolean> {
  const redis = new Redis(url, { lazyConnect: true, connectTimeout: 500, maxRetriesPerRequest: 0, retryStrategy: () => null });
  redis.on('error', () => undefined);
  try {
    await redis.connect();
    return (await redis.ping()) === 'PONG';
  } catch {
    return false;
  } finally {
    redis.disconnect();
  }
}

/** True when the machine's Redis answers; otherwise prints why `suite` is skipped. */
export async function redisAvailable(suite: string): Promise<boolean> {
  if (await answersPing(MACHINE_REDIS)) return true;
  console.warn(`SKIPPED ${suite}: no Redis answers at ${MACHINE_REDIS}; .ci/run requires it.`);
  return false;
}

/** Deletes every key under `prefix` on the machine's Redis. */
export async function deleteKeys(prefix: string): Promise<void> {
  const redis = new Redis(MACHINE_REDIS);
  try {
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length) await redis.del(...keys);
  } finally {
    await redis.quit();
  }
}

const REDIS_SERVER = '/usr/bin/redis-server';
export const canRunPrivateRedis = existsSync(REDIS_SERVER);

export interface PrivateRedis {
  url: string;
  stop(): Promise<void>;
  /** A stopped process keeps its sockets open and answers nothing: a Redis that hangs. */
  pause(): void;
  resume(): void;
}

/** A redis-server of the test's own on `port` (no persistence), killed with the test process at worst. */
export async function startPrivateRedis(port: number): Promise<PrivateRedis> {
  const args = ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', tmpdir()];
  const child = spawn(REDIS_SERVER, args, { stdio: ['ignore', 'pipe', 'inherit'] });
  const killOnExit = () => child.kill('SIGKILL');
  process.once('exit', killOnExit);
  const stop = async () => {
    process.off('exit', killOnExit);
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGKILL');
    await exited;
  };
  await untilOutput(child, 'Ready to accept connections');
  return { url: `redis://127.0.0.1:${port}`, stop, pause: () => child.kill('SIGSTOP'), resume: () => child.kill('SIGCONT') };
}

function untilOutput(child: ChildProcess, text: string): Promise<void> {
  return new Promise((resolve, reject) => {
    let output = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      output += chunk;
      if (output.includes(text)) resolve();
    });
    child.once('exit', (code) => reject(new Error(`redis-server exited (${code}) before it was ready:\n${output}`)));
  });
}
