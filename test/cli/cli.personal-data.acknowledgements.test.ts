// A person's data goes whole (D17): with MAIL_ACKNOWLEDGE=on and the outbox, the copy of the note sent to
// the submitter (`<id>.ack.eml`, its To: naming them) goes with the inquiry, whether `inquiries erase`,
// `purge` or `portico serve`'s retention job removes it. Every file under the outbox is read for the address.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { bearerFor, freePort, inquiry, startApp } from '../support/app.js';
import { startServe } from '../support/serve-process.js';
import { lines, runCli, workspace, type Workspace } from './cli-harness.js';

const YEAR_AND_A_DAY = 366 * 86_400_000;

/** Every file under `dir` that holds `text`, as paths relative to `dir`. */
function filesHolding(dir: string, text: string): string[] {
  let names: string[];
  try {
    names = readdirSync(dir, { recursive: true, encoding: 'utf8' });
  } catch {
    return [];
  }
  return names.filter((name) => {
    try {
      return readFileSync(join(dir, name), 'latin1').includes(text);
    } catch {
      return false; // a folder
    }
  });
}

describe('erasing a person who was sent an acknowledgement', () => {
  let space: Workspace;
  let outbox: string;
  const cli = (...args: string[]) => runCli(args, space.env, space.dir);

  /** Inquiries from `emails` through the API with a Bearer token, each acknowledged in the outbox; `now` the node's clock. */
  const send = async (emails: string[], now = Date.now()) => {
    const api = await startApp({ ...space.env, RATE_LIMITS: 'off', MAIL_ACKNOWLEDGE: 'on' }, { dir: space.dir, outboxDir: outbox, clock: { now: () => now }, port: await freePort() });
    try {
      const bearer = await bearerFor(api, 'contact:write');
      const ids: string[] = [];
      for (const email of emails) {
        expect((await api.post('/api/contact', inquiry({ name: 'Pat Case', email }), bearer)).status).toBe(200);
        ids.push((await api.deps.inquiries.list({ limit: 1 }))[0]!.id);
      }
      // The note is written beside the team's message, after the answer: both name the address.
      for (const email of emails) await expect.poll(() => filesHolding(outbox, email).length).toBe(2);
      return ids;
    } finally {
      await api.close();
    }
  };

  beforeEach(async () => {
    space = await workspace();
    outbox = join(space.dir, 'data', 'outbox');
  });
  afterEach(() => space.remove());

  it('erase --email leaves no file that holds the address', async () => {
    await send(['pat@example.com', 'bo@example.com']);
    expect(lines((await cli('inquiries', 'erase', '--email', 'pat@example.com')).stdout).at(-1)).toBe('erased 1 inquiry, with their outbox copies');
    expect(filesHolding(outbox, 'pat@example.com')).toEqual([]);
    expect(filesHolding(outbox, 'bo@example.com')).toHaveLength(2);
  });

  it('erase --id leaves no file that holds the address', async () => {
    const [id] = await send(['pat@example.com']);
    expect((await cli('inquiries', 'erase', '--id', id!)).code).toBe(0);
    expect(filesHolding(outbox, 'pat@example.com')).toEqual([]);
  });

  it('purge leaves no file that holds the address', async () => {
    await send(['pat@example.com']);
    expect((await cli('inquiries', 'purge', '--older-than', '0')).stdout).toBe('purged 1 inquiry older than 0 days, with their outbox copies\n');
    expect(filesHolding(outbox, 'pat@example.com')).toEqual([]);
  });

  it("portico serve's retention job leaves no file that holds the address of an inquiry past its retention", async () => {
    await send(['pat@example.com'], Date.now() - YEAR_AND_A_DAY);
    await send(['bo@example.com']);
    const node = await startServe({ ...space.env }, { cwd: space.dir });
    try {
      await expect.poll(() => filesHolding(outbox, 'pat@example.com'), { timeout: 10_000 }).toEqual([]);
      expect(filesHolding(outbox, 'bo@example.com')).toHaveLength(2);
    } finally {
      node.child.kill('SIGTERM');
      await node.exited;
    }
  });
});
