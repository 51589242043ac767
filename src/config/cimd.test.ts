// The CIMD_* settings (D13): defaults, accepted values and the one-line refusal of each bad one.
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from './config.js';

const refusal = (env: Record<string, string>) => {
  try {
    loadConfig(env);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as Error).message;
  }
  throw new Error('accepted');
};

describe('the CIMD settings', () => {
  it('fetch documents from any public host, within 5 s, by default', () => {
    expect(loadConfig({}).cimd).toEqual({ enabled: true, allowedHosts: [], deniedHosts: [], allowPrivateNetworks: false, fetchTimeoutMs: 5_000 });
  });

  it('are read as operators write them', () => {
    const config = loadConfig({
      CIMD: 'OFF',
      CIMD_ALLOWED_HOSTS: 'claude.ai, Vscode.dev ,münchen.example',
      CIMD_DENIED_HOSTS: 'evil.example',
      CIMD_ALLOW_PRIVATE_NETWORKS: 'true',
      CIMD_FETCH_TIMEOUT: '1500ms',
    });
    expect(config.cimd).toEqual({
      enabled: false,
      allowedHosts: ['claude.ai', 'vscode.dev', 'xn--mnchen-3ya.example'],
      deniedHosts: ['evil.example'],
      allowPrivateNetworks: true,
      fetchTimeoutMs: 1_500,
    });
  });

  it.each([
    [{ CIMD: 'yes' }, 'CIMD must be on or off (got "yes")'],
    [{ CIMD_ALLOW_PRIVATE_NETWORKS: '1' }, 'CIMD_ALLOW_PRIVATE_NETWORKS must be true or false (got "1")'],
    [{ CIMD_ALLOWED_HOSTS: 'https://claude.ai' }, 'CIMD_ALLOWED_HOSTS must be a comma-separated list of host names such as claude.ai,vscode.dev (got "https://claude.ai")'],
    [{ CIMD_DENIED_HOSTS: 'a.example,,b.example' }, 'CIMD_DENIED_HOSTS must be a comma-separated list of host names such as claude.ai,vscode.dev (got "")'],
    [{ CIMD_FETCH_TIMEOUT: '5' }, 'CIMD_FETCH_TIMEOUT must be a duration such as 500ms, 5s, 2m, 24h or 30d (got "5")'],
    [{ CIMD_FETCH_TIMEOUT: '1m' }, 'CIMD_FETCH_TIMEOUT must be between 100 ms and 30000 ms (got "1m")'],
  ])('refuse %o in one line naming the variable', (env, message) => {
    expect(refusal(env)).toBe(message);
  });
});
