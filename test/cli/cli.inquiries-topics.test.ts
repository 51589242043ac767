// The team sorting leads from the command line: `portico inquiries list --topic`, duplicates listed with
// the id of their first, and `inquiries show` with the topic and the record of the consent.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { consentTextSha256, consentWords } from '../../src/modules/contact/consent.js';
import { bearerFor, inquiry, startApp } from '../support/app.js';
import { lines, workspace, type Workspace } from './cli-harness.js';

/** The table's rows as cells, keyed by the header. */
function table(stdout: string): Record<string, string>[] {
  const [header, ...rows] = lines(stdout).map((line) => line.trim().split(/ {2,}/));
  return rows.map((cells) => Object.fromEntries(header!.map((name, i) => [name, cells[i] ?? ''])));
}

describe('portico inquiries list --topic and show', () => {
  let space: Workspace;
  const ids: Record<string, string> = {};
  let clientId: string;
  beforeAll(async () => {
    space = await workspace();
    const api = await startApp({ ...space.env, RATE_LIMITS: 'off', PRIVACY_POLICY_URL: 'https://www.portico.example/privacy' }, { dir: space.dir });
    try {
      const send = async (name: string, fields: Record<string, unknown>, headers: Record<string, string> = {}) => {
        expect((await api.post('/api/contact', inquiry({ message: `Lead ${name}.`, ...fields }), headers)).status).toBe(200);
        ids[name] = (await api.deps.inquiries.list({ limit: 1 }))[0]!.id;
      };
      await send('demo', { topic: 'demo', consentText: 'I have read and accept the privacy policy of Portico Example.' });
      await send('general', { locale: 'ca' });
      await send('duplicate', { locale: 'ca', message: 'Lead general.' });
      const bearer = await bearerFor(api, 'contact:write');
      await send('sales', { topic: 'sales', locale: 'en' }, bearer);
      clientId = (await api.deps.inquiries.get(ids.sales!))!.clientId!;
    } finally {
      await api.close();
    }
  });
  afterAll(() => space.remove());

  it('lists only the inquiries of a topic, and with general those without one', async () => {
    const demo = await space.cli('inquiries', 'list', '--topic', 'demo');
    expect(demo.code).toBe(0);
    expect(table(demo.stdout).map((row) => [row.ID, row.TOPIC])).toEqual([[ids.demo, 'demo']]);
    const general = await space.cli('inquiries', 'list', '--topic', 'general', '--json');
    expect(lines(general.stdout).map((line) => (JSON.parse(line) as { id: string; topic: null }).topic)).toEqual([null, null]);
    expect(lines(general.stdout).map((line) => (JSON.parse(line) as { id: string }).id)).toEqual([ids.duplicate, ids.general]);
  });

  it('refuses a topic it does not know, naming the ones it does', async () => {
    const { code, stdout, stderr } = await space.cli('inquiries', 'list', '--topic', 'billing');
    expect([code, stdout]).toEqual([1, '']);
    expect(lines(stderr)).toEqual(['portico: --topic must be one of sales, demo, support, general (got "billing")']);
  });

  it('lists a duplicate with the id of its first inquiry', async () => {
    const { stdout } = await space.cli('inquiries', 'list', '--status', 'duplicate');
    expect(table(stdout)).toEqual([expect.objectContaining({ ID: ids.duplicate, STATUS: 'duplicate', REASONS: `duplicate of ${ids.general}` })]);
  });

  it('shows the topic and the consent: when, through which door, the policy and the digest of the words shown', async () => {
    const demo = await space.cli('inquiries', 'show', ids.demo!);
    expect(demo.code).toBe(0);
    const field = (stdout: string, label: string) =>
      lines(stdout)
        .find((line) => line.startsWith(`${label}:`))!
        .slice(label.length + 1)
        .trim();
    expect(field(demo.stdout, 'topic')).toBe('demo');
    const received = field(demo.stdout, 'received');
    const typed = consentTextSha256('I have read and accept the privacy policy of Portico Example.');
    expect(field(demo.stdout, 'consent')).toBe(`${received} through form; policy https://www.portico.example/privacy; words sha256:${typed}`);

    const sales = await space.cli('inquiries', 'show', ids.sales!);
    expect(field(sales.stdout, 'topic')).toBe('sales');
    const standard = consentTextSha256(consentWords('en'));
    expect(field(sales.stdout, 'consent')).toBe(`${field(sales.stdout, 'received')} through api by client ${clientId}; policy https://www.portico.example/privacy; words sha256:${standard}`);
  });

  it('exports each inquiry with its record of consent, which erase takes away with it', async () => {
    const exported = await space.cli('inquiries', 'export', '--email', 'ana@example.com');
    expect(exported.code).toBe(0);
    type Exported = { id: string; createdAt: string; consent: Record<string, unknown> };
    const byId = new Map((JSON.parse(exported.stdout) as { inquiries: Exported[] }).inquiries.map((i) => [i.id, i]));
    expect(byId.size).toBe(4);
    const policyUrl = 'https://www.portico.example/privacy';
    expect(byId.get(ids.sales!)!.consent).toEqual({ givenAt: byId.get(ids.sales!)!.createdAt, door: 'api', assertedBy: clientId, policyUrl, textSha256: consentTextSha256(consentWords('en')) });
    expect(byId.get(ids.general!)!.consent).toEqual({ givenAt: byId.get(ids.general!)!.createdAt, door: 'form', assertedBy: null, policyUrl, textSha256: consentTextSha256(consentWords('ca')) });

    expect((await space.cli('inquiries', 'erase', '--email', 'ana@example.com')).code).toBe(0);
    const after = JSON.parse((await space.cli('inquiries', 'export', '--email', 'ana@example.com')).stdout) as { inquiries: unknown[] };
    expect(after.inquiries).toEqual([]);
    expect((await space.cli('inquiries', 'show', ids.demo!)).stderr).toContain(`no inquiry ${ids.demo}`);
  });
});
