// Every setting the configuration reads is in README's Configuration table and in .env.example, and
// neither names a setting that is not read.
import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/config.js';
import { ROOT, section } from './shell-blocks.js';

/** The names loadConfig asks its environment for, given `values`. */
function namesRead(values: Record<string, string>): Set<string> {
  const read = new Set<string>();
  const env = new Proxy(values, {
    get(target, name) {
      if (typeof name === 'string') read.add(name);
      return target[name as string];
    },
  });
  loadConfig(env);
  return read;
}

// Settings read only when others are set: the relay's, the webhook's, Turnstile's, production's.
const PRODUCTION = { APP_ENV: 'production', PUBLIC_URL: 'https://api.example.com', MAIL_FROM: 'portico@example.com', MAIL_TO: 'team@example.com' };
const ENVIRONMENTS = [
  {},
  { ...PRODUCTION, SMTP_URL: 'smtp://relay.example.com:587', TURNSTILE_SECRET_KEY: 'secret', TURNSTILE_SITE_KEY: 'site' },
  {
    ...PRODUCTION,
    SMTP_URL: 'smtp://sales%40example.com@smtp.office365.com:587',
    SMTP_OAUTH2_CLIENT_ID: 'id',
    SMTP_OAUTH2_CLIENT_SECRET: 's',
    SMTP_OAUTH2_REFRESH_TOKEN: 'r',
    SMTP_OAUTH2_TOKEN_URL: 'https://login.example.com/token',
  },
  { ...PRODUCTION, WEBHOOK_URL: 'https://crm.example.com/hook', WEBHOOK_SECRET: `whsec_${Buffer.alloc(24, 1).toString('base64')}` },
];

describe('the documented configuration', () => {
  it('names, in README and in .env.example, exactly the settings Portico reads', async () => {
    const read = new Set(ENVIRONMENTS.flatMap((values) => [...namesRead(values)]));
    const readme = await readFile(`${ROOT}README.md`, 'utf8');
    const table = section(readme, 'Configuration');
    const documented = new Set(
      table
        .split('\n')
        .filter((line) => line.startsWith('| `'))
        .flatMap((line) => [...line.split(' | ')[0]!.matchAll(/`([A-Z][A-Z0-9_]+)`/g)].map((match) => match[1]!)),
    );
    const example = await readFile(`${ROOT}.env.example`, 'utf8');
    const exampled = new Set([...example.matchAll(/^#? ?([A-Z][A-Z0-9_]+)=/gm)].map((match) => match[1]!));

    expect([...read].sort()).toEqual([...documented].sort());
    expect([...read].filter((name) => !exampled.has(name))).toEqual([]);
  });
});
