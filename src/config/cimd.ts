// The CIMD_* settings (D13): whether client ID metadata documents are fetched, from which hosts, how long a fetch may take.
import { domainToASCII } from 'node:url';
import { parseSwitch, type Fail } from './values.js';
import { durationMs } from './durations.js';

export interface CimdSettings {
  enabled: boolean;
  /** Host names whose documents are fetched; empty means any host not denied. */
  allowedHosts: readonly string[];
  deniedHosts: readonly string[];
  /** Lets the fetch reach loopback and private addresses: for tests and private deployments only. */
  allowPrivateNetworks: boolean;
  fetchTimeoutMs: number;
}

type Read = (name: string) => string | undefined;

/**
 * The CIMD_* settings; by default documents are fetched from any host not denied, at public addresses only.
 * A bad value goes to `fail`.
 */
export function parseCimd(read: Read, fail: Fail): CimdSettings {
  return {
    enabled: parseSwitch('CIMD', read('CIMD') ?? 'on', ['on', 'off'], fail) === 'on',
    allowedHosts: parseHosts('CIMD_ALLOWED_HOSTS', read('CIMD_ALLOWED_HOSTS'), fail),
    deniedHosts: parseHosts('CIMD_DENIED_HOSTS', read('CIMD_DENIED_HOSTS'), fail),
    allowPrivateNetworks: parseSwitch('CIMD_ALLOW_PRIVATE_NETWORKS', read('CIMD_ALLOW_PRIVATE_NETWORKS') ?? 'false', ['true', 'false'], fail) === 'true',
    fetchTimeoutMs: parseDurationMs('CIMD_FETCH_TIMEOUT', read('CIMD_FETCH_TIMEOUT') ?? '5s', { minMs: 100, maxMs: 30_000 }, fail),
  };
}

/** Comma-separated host names, compared in their ASCII (punycode) lower-case form, as URL.hostname gives them. */
function parseHosts(name: string, raw: string | undefined, fail: Fail): string[] {
  if (raw === undefined) return [];
  return raw.split(',').map((item) => {
    const value = item.trim();
    const ascii = domainToASCII(value);
    if (!ascii || ascii.includes('/') || ascii.includes(':') || ascii.includes('*')) fail(name, 'must be a comma-separated list of host names such as claude.ai,vscode.dev', value);
    return ascii;
  });
}

/** A duration within bounds (durations.ts). */
function parseDurationMs(name: string, raw: string, bounds: { minMs: number; maxMs: number }, fail: Fail): number {
  const ms = durationMs(raw);
  if (ms === undefined) return fail(name, 'must be a duration such as 500ms, 5s, 2m, 24h or 30d', raw);
  if (ms < bounds.minMs || ms > bounds.maxMs) fail(name, `must be between ${bounds.minMs} ms and ${bounds.maxMs} ms`, raw);
  return ms;
}
