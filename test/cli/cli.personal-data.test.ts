// A person's data: `inquiries export --email` for access and portability, `inquiries erase` for
// erasure (with --dry-run first), and `inquiries purge --dry-run`. Run as the team runs them, from the
// folder whose data/ holds the database and the outbox copies of the e-mails. An address matches in
// every case and Unicode form that mail delivers to the same mailbox.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { inquiry, startApp } from '../support/app.js';
import { outboxMessages } from '../support/outbox.js';
import { lines, runCli, workspace, type Workspace } from './cli-harness.js';

describe('portico inquiries export, erase and purge --dry-run', () => {
  let space: Workspace;
  let outbox: string;
  const cli = (...args: string[]) => runCli(args, space.env, space.dir);
  const ids = async () => {
    const listed = await cli('inquiries', 'list', '--json');
    expect(listed.code, listed.stderr).toBe(0);
    return lines(listed.stdout).map((line) => JSON.parse(line) as { id: string; email: string });
  };

  /** Sends an inquiry from each address through the API, as a visitor would; each a message of its own unless one is given. */
  const send = async (people: [name: string, email: string, message?: string][]) => {
    const api = await startApp({ ...space.env, RATE_LIMITS: 'off' }, { dir: space.dir, outboxDir: outbox });
    try {
      for (const [name, email, message] of people) expect((await api.post('/api/contact', inquiry({ name, email, ...(message && { message }) }))).status).toBe(200);
    } finally {
      await api.close();
    }
  };

  beforeEach(async () => {
    space = await workspace();
    outbox = join(space.dir, 'data', 'outbox');
    await send([
      ['Ana García', 'ana@example.com'],
      ['Bo Svensson', 'bo@example.com'],
      ['Ana García', 'ana@example.com', 'And could we see the booking module?'],
    ]);
  });
  afterEach(() => space.remove());

  // One person, as mail delivered to one mailbox: three cases, and a domain typed in fullwidth letters.
  const VARIANTS = ['Privacy.Case@Example.COM', 'privacy.case@example.com', 'PRIVACY.CASE@example.com', 'privacy.case@ｅｘａｍｐｌｅ.ｃｏｍ'];

  it('exports the inquiries of every case of an address and of its fullwidth domain, and says how many matched in which form', async () => {
    await send(VARIANTS.map((email) => ['Pat Case', email]));
    const { code, stdout, stderr } = await cli('inquiries', 'export', '--email', 'privacy.case@example.com');
    expect(code).toBe(0);
    const document = JSON.parse(stdout) as { email: string; inquiries: { email: string }[] };
    expect(document.email).toBe('privacy.case@example.com');
    expect(document.inquiries.map((i) => i.email).sort()).toEqual([...VARIANTS].sort());
    expect(lines(stderr)).toEqual(['4 inquiries matched privacy.case@example.com (compared as privacy.case@example.com)']);

    const typed = await cli('inquiries', 'export', '--email', 'PRIVACY.Case@ＥＸＡＭＰＬＥ.com');
    expect((JSON.parse(typed.stdout) as { inquiries: unknown[] }).inquiries).toHaveLength(4);
    expect(lines(typed.stderr)).toEqual(['4 inquiries matched PRIVACY.Case@ＥＸＡＭＰＬＥ.com (compared as privacy.case@example.com)']);
  });

  it('finds an address with a capital sigma by the domain mail delivers it to, never by the final-sigma domain, which is another', async () => {
    // σασ-x.gr and σας-x.gr are two domains; g@ΣΑΣ-x.gr is delivered to the first.
    await send([
      ['Georgios', 'g@ΣΑΣ-x.gr'],
      ['Giorgos', 'g@σας-x.gr'],
    ]);
    const exported = async (email: string) => (JSON.parse((await cli('inquiries', 'export', '--email', email)).stdout) as { inquiries: { email: string }[] }).inquiries.map((i) => i.email);
    expect(await exported('g@ΣΑΣ-x.gr')).toEqual(['g@ΣΑΣ-x.gr']);
    expect(await exported('G@σασ-X.GR')).toEqual(['g@ΣΑΣ-x.gr']);
    expect(await exported('g@σας-x.gr')).toEqual(['g@σας-x.gr']);

    expect(lines((await cli('inquiries', 'erase', '--email', 'g@σας-x.gr')).stdout).at(-1)).toBe('erased 1 inquiry, with their outbox copies');
    expect((await ids()).map((i) => i.email)).toContain('g@ΣΑΣ-x.gr');
  });

  it('says so when no inquiry matched, beside an empty document', async () => {
    const { code, stdout, stderr } = await cli('inquiries', 'export', '--email', 'nobody@example.com');
    expect(code).toBe(0);
    expect((JSON.parse(stdout) as { inquiries: unknown[] }).inquiries).toEqual([]);
    expect(lines(stderr)).toEqual(['0 inquiries matched nobody@example.com (compared as nobody@example.com)']);
  });

  it('erases the inquiries of every case of an address and of its fullwidth domain, and says how many', async () => {
    await send(VARIANTS.map((email, i) => ['Pat Case', email, `Question ${i + 1}`]));
    const dry = await cli('inquiries', 'erase', '--email', 'Privacy.Case@example.com', '--dry-run');
    expect(lines(dry.stdout).at(-1)).toBe('would erase 4 inquiries, with their outbox copies (dry run: nothing deleted)');

    const { code, stdout } = await cli('inquiries', 'erase', '--email', 'Privacy.Case@example.com');
    expect(code).toBe(0);
    expect(lines(stdout).at(-1)).toBe('erased 4 inquiries, with their outbox copies');
    expect((await ids()).map((i) => i.email).sort()).toEqual(['ana@example.com', 'ana@example.com', 'bo@example.com']);
    expect(outboxMessages(outbox)).toHaveLength(3);
  });

  it('exports every inquiry of an address as one JSON document, and nothing of anyone else', async () => {
    const { code, stdout } = await cli('inquiries', 'export', '--email', 'ana@example.com');
    expect(code).toBe(0);
    const document = JSON.parse(stdout) as { email: string; inquiries: { email: string; name: string; message: string; createdAt: string }[] };
    expect(document.email).toBe('ana@example.com');
    expect(document.inquiries).toHaveLength(2);
    for (const item of document.inquiries) {
      expect(item).toMatchObject({ email: 'ana@example.com', name: 'Ana García' });
      expect(item.createdAt).toMatch(/^\d{4}-\d\d-\d\dT/);
    }
    expect(document.inquiries.map((item) => item.message).sort()).toEqual(['And could we see the booking module?', 'We manage 40 buildings and would like a demo.']);
    expect(stdout).not.toContain('bo@example.com');
  });

  it('shows what an erasure would remove with --dry-run, then erases the rows and outbox copies, logging ids and never the address', async () => {
    const anas = (await ids()).filter((i) => i.email === 'ana@example.com').map((i) => i.id);
    expect(outboxMessages(outbox)).toHaveLength(3);

    const dry = await cli('inquiries', 'erase', '--email', 'ana@example.com', '--dry-run');
    expect(dry.code).toBe(0);
    expect(lines(dry.stdout).at(-1)).toBe('would erase 2 inquiries, with their outbox copies (dry run: nothing deleted)');
    expect(await ids()).toHaveLength(3);

    const { code, stdout, stderr } = await cli('inquiries', 'erase', '--email', 'ana@example.com');
    expect(code).toBe(0);
    expect(lines(stdout).sort()).toEqual([...anas.map((id) => `erased inquiry ${id}`), 'erased 2 inquiries, with their outbox copies'].sort());
    const log = JSON.parse(lines(stderr).at(-1)!) as { msg: string; erased: number; ids: string[] };
    expect(log).toMatchObject({ msg: 'inquiries erased on request', erased: 2 });
    expect(log.ids.sort()).toEqual([...anas].sort());
    expect(stdout + stderr).not.toContain('ana@example.com');

    expect((await ids()).map((i) => i.email)).toEqual(['bo@example.com']);
    const bos = (await ids()).map((i) => `${i.id}.eml`);
    expect(outboxMessages(outbox)).toEqual(bos);
    expect(readFileSync(join(space.dir, 'p.sqlite')).includes(Buffer.from('ana@example.com'))).toBe(false);
  });

  it('erases one inquiry by id', async () => {
    const [first] = await ids();
    const { code, stdout } = await cli('inquiries', 'erase', '--id', first!.id);
    expect(code).toBe(0);
    expect(lines(stdout).at(-1)).toBe('erased 1 inquiry, with their outbox copies');
    expect((await ids()).map((i) => i.id)).not.toContain(first!.id);
    expect(outboxMessages(outbox)).toHaveLength(2);
    expect(outboxMessages(outbox)).not.toContain(`${first!.id}.eml`);
  });

  it('needs exactly one of --email and --id, and erases nothing otherwise', async () => {
    for (const args of [[], ['--email', 'ana@example.com', '--id', 'x']]) {
      const { code, stderr } = await cli('inquiries', 'erase', ...args);
      expect(code).toBe(1);
      expect(lines(stderr)).toEqual(['portico: usage: portico inquiries erase --email ADDRESS | --id ID [--dry-run]']);
    }
    expect(await ids()).toHaveLength(3);
  });

  it('counts what a purge would delete with --dry-run, then purges the rows and their outbox copies', async () => {
    const dry = await cli('inquiries', 'purge', '--older-than', '0', '--dry-run');
    expect(dry.stdout).toBe('would purge 3 inquiries older than 0 days, with their outbox copies (dry run: nothing deleted)\n');
    expect(await ids()).toHaveLength(3);
    expect((await cli('inquiries', 'purge', '--older-than', '0')).stdout).toBe('purged 3 inquiries older than 0 days, with their outbox copies\n');
    expect(await ids()).toEqual([]);
    expect(readdirSync(outbox)).toEqual([]);
  });
});
