// Screening leads (D20) as the team meets it: `portico serve` nodes writing the development outbox, inquiries
// sent through POST /api/contact and through contact_service (the MCP SDK client), and the CLI the team runs.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { simpleParser } from 'mailparser';
import { describe, expect, it } from 'vitest';
import { lines, runCli, type CliResult } from '../cli/cli-harness.js';
import { outboxFiles } from '../support/outbox.js';

export interface Deployment {
  /** Two nodes' base URLs; the same node twice on SQLite. */
  nodes: [string, string];
  /** The folder the nodes and commands run in: its data/outbox holds the e-mails. */
  dir: string;
  /** The environment the nodes and commands share. */
  env: Record<string, string>;
}

/** What every deployment of the suite is started with. */
export const SCREENING_ENV = { RATE_LIMITS: 'off', SPAM_BLOCKED_TERMS: 'casino, free money' };

type Channel = 'web' | 'mcp';

/**
 * The acceptance, on one deployment, through each channel: duplicates reach the team once (across
 * nodes when there are two), a throwaway address is delivered marked, links and a blocked term are kept as
 * spam with their reasons until the team releases one, and an ordinary inquiry with a link arrives unmarked.
 */
export function screeningSuite(engine: string, deployment: () => Deployment): void {
  const outbox = () => join(deployment().dir, 'data', 'outbox');
  const cli = (...args: string[]): Promise<CliResult> => runCli(args, deployment().env, deployment().dir);
  /** The e-mails in the outbox for one address, parsed. */
  const mailFor = async (address: string) => {
    const files = outboxFiles(outbox()).filter((path) => !path.endsWith('.ack.eml'));
    const parsed = await Promise.all(files.map((path) => simpleParser(readFileSync(path))));
    return parsed.filter((mail) => mail.replyTo?.value[0]?.address === address);
  };
  const spamList = async () => {
    const listed = await cli('inquiries', 'list', '--status', 'spam', '--format', 'json');
    expect(listed.code, listed.stderr).toBe(0);
    return JSON.parse(listed.stdout) as { id: string; email: string; status: string; spamReasons: string[] }[];
  };

  async function send(node: string, channel: Channel, fields: { email: string; message: string; name?: string }): Promise<void> {
    const inquiry = { name: 'Ana García', privacy: true, ...fields };
    if (channel === 'web') {
      const response = await fetch(`${node}/api/contact`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(inquiry) });
      expect(await response.json()).toEqual({ ok: true });
      return;
    }
    const client = new Client({ name: 'screening-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${node}/mcp`)));
    try {
      const result = await client.callTool({ name: 'contact_service', arguments: inquiry });
      expect(result.structuredContent).toEqual({ ok: true });
    } finally {
      await client.close();
    }
  }

  describe.each<Channel>(['web', 'mcp'])(`screening on ${engine}, through %s`, (channel) => {
    const address = (who: string) => `${who}.${channel}@example.com`;

    it('delivers the same inquiry sent twice within a minute once, the second (a trailing space added) recorded as its duplicate', async () => {
      const [first, second] = deployment().nodes;
      const message = 'We manage 40 buildings and would like a demo.';
      await send(first, channel, { email: address('twice'), message });
      await send(second, channel, { email: address('TWICE').replace('TWICE', 'Twice'), message: `${message} ` });
      expect(await mailFor(address('twice'))).toHaveLength(1);
      const listed = await cli('inquiries', 'list', '--format', 'json');
      const mine = (JSON.parse(listed.stdout) as { id: string; email: string; status: string; duplicateOf: string | null }[]).filter((i) => i.email.toLowerCase() === address('twice'));
      expect(mine.map((i) => i.status)).toEqual(['duplicate', 'sent']);
      expect(mine[0]!.duplicateOf).toBe(mine[1]!.id);
    });

    it('delivers the same inquiry sent to two nodes at the same moment once', async () => {
      const [first, second] = deployment().nodes;
      const message = 'Sent from two tabs at once.';
      await Promise.all([send(first, channel, { email: address('together'), message }), send(second, channel, { email: address('together'), message })]);
      expect(await mailFor(address('together'))).toHaveLength(1);
    });

    it('delivers an inquiry from a throwaway address marked, in the subject and in X-Portico-Spam-Reasons', async () => {
      await send(deployment().nodes[0], channel, { email: `burner.${channel}@mailinator.com`, message: 'Pricing for 12 buildings?' });
      const [mail] = await mailFor(`burner.${channel}@mailinator.com`);
      expect(mail?.subject).toMatch(/^\[Posible spam\] /);
      expect(mail?.headers.get('x-portico-spam-reasons')).toBe('disposable-address');
    });

    it('delivers an ordinary inquiry with one link unmarked', async () => {
      await send(deployment().nodes[0], channel, { email: address('linked'), message: 'Our current site is https://fincas.example, could you match it?' });
      const [mail] = await mailFor(address('linked'));
      expect(mail?.subject).not.toContain('spam');
      expect(mail?.headers.has('x-portico-spam-reasons')).toBe(false);
    });

    it('keeps 12 links and a blocked term as spam, listed with their reasons, and delivers one the team releases, once', async () => {
      const links = Array.from({ length: 12 }, (_, i) => `https://site-${i}.example/offer`).join(' ');
      await send(deployment().nodes[0], channel, { email: address('links'), message: `Cheap followers: ${links}` });
      await send(deployment().nodes[1], channel, { email: address('casino'), message: 'Best CASINO bonus, play now' });
      expect(await mailFor(address('links'))).toEqual([]);
      expect(await mailFor(address('casino'))).toEqual([]);
      const held = await spamList();
      expect(held.find((i) => i.email === address('links'))).toMatchObject({ status: 'spam', spamReasons: ['links'] });
      const casino = held.find((i) => i.email === address('casino'));
      expect(casino).toMatchObject({ status: 'spam', spamReasons: ['blocked-term'] });

      const shown = await cli('inquiries', 'show', casino!.id);
      expect(shown.code).toBe(0);
      expect(lines(shown.stdout)).toEqual(expect.arrayContaining([expect.stringMatching(/^status: +spam$/), expect.stringMatching(/^reasons: +blocked-term$/), 'Best CASINO bonus, play now']));

      const released = await cli('inquiries', 'release', casino!.id);
      expect(released.code, released.stderr).toBe(0);
      expect(lines(released.stdout)).toEqual([`inquiry ${casino!.id} released and delivered to team@localhost`]);
      const [mail, ...more] = await mailFor(address('casino'));
      expect(more).toEqual([]);
      // The team judged it: it arrives as any inquiry does.
      expect(mail?.subject).not.toContain('spam');
      expect(mail?.headers.has('x-portico-spam-reasons')).toBe(false);
      expect((await spamList()).map((i) => i.id)).not.toContain(casino!.id);

      const again = await cli('inquiries', 'release', casino!.id);
      expect(again.code).toBe(1);
      expect(lines(again.stderr)).toEqual([expect.stringMatching(new RegExp(`^portico: inquiry ${casino!.id} was already released, at \\d{4}-.*; nothing to release$`))]);
      expect(await mailFor(address('casino'))).toHaveLength(1);
    });
  });
}
