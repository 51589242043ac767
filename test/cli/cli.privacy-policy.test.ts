// PRIVACY_POLICY_URL: a production node without it says at start that the forms' consent links nowhere.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { idlePort } from '../support/app.js';
import { startServe, type ServeProcess } from '../support/serve-process.js';

describe('PRIVACY_POLICY_URL at start', () => {
  let dir: string;
  let node: ServeProcess | undefined;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'portico-privacy-'));
  });
  afterEach(async () => {
    node?.child.kill('SIGTERM');
    await node?.exited;
    await rm(dir, { recursive: true, force: true });
  });

  const production = async () => ({
    APP_ENV: 'production',
    PUBLIC_URL: 'https://api.portico.example',
    MAIL_FROM: 'no-reply@portico.example',
    MAIL_TO: 'sales@portico.example',
    SMTP_URL: `smtp://127.0.0.1:${await idlePort()}`,
    DATABASE_URL: `sqlite:${join(dir, 'portico.sqlite')}`,
  });
  const warning = 'PRIVACY_POLICY_URL is unset: the contact forms ask visitors to accept a privacy policy they cannot open';

  it('is asked for by a production node that has none', async () => {
    node = await startServe(await production(), { cwd: dir });
    await expect.poll(() => node!.output()).toContain(warning);
  });

  it('is served to the embedded form once set, and the warning is gone', async () => {
    node = await startServe({ ...(await production()), PRIVACY_POLICY_URL: 'https://www.portico.example/privacy' }, { cwd: dir });
    expect(await (await fetch(`${node.url}/embed/config.json`)).json()).toMatchObject({ privacyPolicyUrl: 'https://www.portico.example/privacy' });
    expect(node.output()).not.toContain('PRIVACY_POLICY_URL');
  });
});
