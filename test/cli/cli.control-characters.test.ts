// What a visitor typed never reaches the operator's terminal raw: C0 and C1 controls (U+009B is CSI, which
// some terminals obey as ESC [) are escaped in JSON lines, which stay valid JSON (tables: src/commands/output.test.ts).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inquiry, startApp, type TestApp } from '../support/app.js';
import { lines, workspace, type Workspace } from './cli-harness.js';

const HOSTILE = 'Call me \u009b31mnow\u009b0m, please\u0085\u2028thanks';
const RAW_CONTROLS = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u2028\u2029]/;

describe('control characters in CLI output', () => {
  let ws: Workspace;
  let api: TestApp;
  beforeAll(async () => {
    ws = await workspace();
    api = await startApp({ DATABASE_URL: ws.env.DATABASE_URL!, RATE_LIMITS: 'off' }, { dir: ws.dir });
    expect((await api.post('/api/contact', inquiry({ message: HOSTILE, email: 'csi@example.com' }))).status).toBe(200);
  });
  afterAll(async () => {
    await api.close();
    await ws.remove();
  });

  it('escapes them in inquiries list --json, which still reads back exactly', async () => {
    const { code, stdout } = await ws.cli('inquiries', 'list', '--json');
    expect(code).toBe(0);
    expect(stdout).not.toMatch(RAW_CONTROLS);
    expect(stdout).toContain('\\u009b31m');
    expect(
      lines(stdout)
        .map((line) => JSON.parse(line))
        .find((i) => i.email === 'csi@example.com')?.message,
    ).toBe(HOSTILE);
  });

  it.each([
    ['inquiries list --format json', ['inquiries', 'list', '--format', 'json'], (doc: { email: string; message: string }[]) => doc],
    ['inquiries export', ['inquiries', 'export', '--email', 'csi@example.com'], (doc: { inquiries: { email: string; message: string }[] }) => doc.inquiries],
  ])('escapes them in %s, one JSON document that still reads back exactly', async (_, args, inquiries) => {
    const { code, stdout } = await ws.cli(...(args as string[]));
    expect(code).toBe(0);
    expect(stdout).not.toMatch(RAW_CONTROLS);
    expect((inquiries as (doc: unknown) => { email: string; message: string }[])(JSON.parse(stdout)).find((i) => i.email === 'csi@example.com')?.message).toBe(HOSTILE);
  });
});
