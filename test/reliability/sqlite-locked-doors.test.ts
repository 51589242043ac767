// Every door of `portico serve` while another process holds SQLite's write lock for 9 s, as a purge, an
// erasure or a backup does (D23): /healthz stays quick throughout, no door answers 500 or 502, every 503
// says when to come back, every /mcp answer is JSON-RPC, and every inquiry answered 200 is delivered once.
import { randomBytes } from 'node:crypto';
import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../support/app.js';
import { ROOT, startServe, type ServeProcess } from '../support/serve-process.js';
import { startSmtpServer, type TestSmtpServer } from '../support/smtp-server.js';
import { codeTokens, registerClient, tokenRequest, type Client } from '../upgrade/traffic.js';

const LOCK_MS = 9_000;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const basic = (client: Client) => `Basic ${Buffer.from(`${client.client_id}:${client.client_secret}`).toString('base64')}`;

interface Answer {
  door: string;
  round: string;
  /** The inquiry's marker, for the doors that send one. */
  marker?: string;
  status: number;
  retryAfter: string | null;
  /** The JSON body, or the JSON of a server-sent event's data. */
  body: unknown;
  ms: number;
}

describe('a node whose SQLite write lock another process holds for 9 s', () => {
  let dir: string;
  let node: ServeProcess;
  let smtp: TestSmtpServer;
  let base: string;
  let client: Client;
  let refreshToken: string;
  let bearer: string;
  /** An access token for each round to revoke. */
  const revocable: Record<string, string> = {};

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'portico-locked-'));
    smtp = await startSmtpServer();
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    node = await startServe(
      { DATABASE_URL: `sqlite:${join(dir, 'portico.sqlite')}`, PUBLIC_URL: base, RATE_LIMITS: 'off', SMTP_URL: smtp.url, MAIL_FROM: 'web@portico.example', MAIL_TO: 'team@portico.example' },
      { port, cwd: dir },
    );
    client = await registerClient(base);
    refreshToken = (await codeTokens(base, client)).refresh_token!;
    bearer = (await tokenRequest(base, client, { grant_type: 'client_credentials', scope: 'contact:write mcp:invoke' })).body.access_token!;
    for (const round of ['first', 'second']) revocable[round] = (await tokenRequest(base, client, { grant_type: 'client_credentials', scope: 'contact:write' })).body.access_token!;
  }, 30_000);
  afterAll(async () => {
    node?.child.kill('SIGTERM');
    await node?.exited;
    await smtp?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  const answer = async (door: string, path: string, init: RequestInit = {}, round = '', marker?: string): Promise<Answer> => {
    const started = performance.now();
    const response = await fetch(`${base}${path}`, { ...init, redirect: 'manual' });
    const text = await response.text();
    const ms = performance.now() - started;
    const event = /^data: (.*)$/m.exec(text)?.[1];
    let body: unknown = text;
    try {
      body = JSON.parse(event ?? text);
    } catch {
      // An HTML page (the consent page) or an empty answer: kept as text.
    }
    return { door, round, marker, status: response.status, retryAfter: response.headers.get('retry-after'), body, ms };
  };
  const json = (body: unknown, headers: Record<string, string> = {}): RequestInit => ({ method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
  const MCP = { accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25' };
  const inquiry = (marker: string) => ({ name: 'Locked Out', email: 'locked@example.com', message: `Sent while the database was locked: ${marker}`, privacy: true });
  const contactCall = (marker: string, meta?: object) => ({
    jsonrpc: '2.0',
    id: marker,
    method: 'tools/call',
    params: { name: 'contact_service', arguments: inquiry(marker), ...(meta && { _meta: meta }) },
  });

  /** One request through every door. */
  const everyDoor = (round: string): Promise<Answer>[] => {
    const sending = (door: string, path: string, request: (marker: string) => RequestInit) => {
      const marker = `${round}-${randomBytes(4).toString('hex')}`;
      return answer(door, path, request(marker), round, marker);
    };
    const other = (door: string, path: string, init?: RequestInit) => answer(door, path, init, round);
    return [
      sending('anonymous inquiry', '/api/contact', (m) => json(inquiry(m))),
      sending('Bearer inquiry', '/api/contact', (m) => json(inquiry(m), { authorization: `Bearer ${bearer}` })),
      sending('contact_service', '/mcp', (m) => json(contactCall(m), MCP)),
      sending('contact_service through the SDK', '/mcp', (m) => json(contactCall(m, { progressToken: 7 }), MCP)),
      sending('Bearer contact_service', '/mcp', (m) => json(contactCall(m), { ...MCP, authorization: `Bearer ${bearer}` })),
      other('tools/list', '/mcp', json({ jsonrpc: '2.0', id: 'list', method: 'tools/list' }, MCP)),
      other(
        'initialize',
        '/mcp',
        json({ jsonrpc: '2.0', id: 'init', method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'probe', version: '1' } } }, MCP),
      ),
      other('registration', '/oauth/register', json({ client_name: `During the lock, ${round}`, grant_types: ['client_credentials'] })),
      other('client_credentials', '/oauth/token', {
        method: 'POST',
        headers: { authorization: basic(client) },
        body: new URLSearchParams({ grant_type: 'client_credentials', scope: 'contact:write' }),
      }),
      other(
        'authorize',
        `/oauth/authorize?${new URLSearchParams({ response_type: 'code', client_id: client.client_id, redirect_uri: 'https://crm.example/callback', code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM', code_challenge_method: 'S256', state: round })}`,
      ),
      other('revocation', '/oauth/revoke', { method: 'POST', headers: { authorization: basic(client) }, body: new URLSearchParams({ token: revocable[round]! }) }),
      other('metadata', '/.well-known/oauth-authorization-server'),
    ];
  };

  it('keeps /healthz quick, answers inside the error contract at every door, and delivers each inquiry it answered 200 once', { timeout: 60_000 }, async () => {
    const other = new Database(join(dir, 'portico.sqlite'));
    const health: number[] = [];
    let locked = true;
    const polling = (async () => {
      while (locked) {
        const started = performance.now();
        const response = await fetch(`${base}/healthz`);
        await response.arrayBuffer();
        expect(response.status).toBe(200);
        health.push(performance.now() - started);
        await sleep(100);
      }
    })();

    other.exec('begin immediate');
    const lockTaken = performance.now();
    // The first round waits out the lock and is refused; the second is let through when the lock is given back.
    const first = everyDoor('first');
    await sleep(200);
    const ready = await answer('readyz', '/readyz', {}, 'first');
    await sleep(5_500);
    const second = everyDoor('second');
    // A refresh is a token rotation, one at a time.
    const refresh = answer(
      'refresh_token',
      '/oauth/token',
      { method: 'POST', headers: { authorization: basic(client) }, body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: refreshToken }) },
      'second',
    );
    await sleep(LOCK_MS - (performance.now() - lockTaken));
    other.exec('commit');
    other.close();
    expect((await answer('readyz', '/readyz')).status).toBe(200);
    const answers = [ready, ...(await Promise.all([...first, ...second, refresh]))];
    locked = false;
    await polling;

    expect(Math.max(...health), `/healthz took ${health.map((ms) => ms.toFixed(0)).join(', ')} ms`).toBeLessThan(500);
    expect(health.length).toBeGreaterThan(40);
    const report = answers
      .map(({ door, round, status, retryAfter, ms, body }) => `${round} ${door}: ${status} in ${ms.toFixed(0)} ms, Retry-After ${retryAfter}, ${JSON.stringify(body).slice(0, 160)}`)
      .join('\n');
    expect(
      answers.filter((a) => a.status >= 500 && a.status !== 503),
      report,
    ).toEqual([]);
    expect(
      answers.filter((a) => a.status === 503 && !a.retryAfter),
      report,
    ).toEqual([]);
    expect(ready.status).toBe(503);
    for (const a of answers.filter((a) => a.door.includes('contact_service') || a.door === 'tools/list' || a.door === 'initialize')) {
      expect(a.body, `${a.door}\n${report}`).toMatchObject({ jsonrpc: '2.0' });
    }
    const of = (round: string, door: string) => answers.find((a) => a.round === round && a.door === door)!;
    // The first round waited five seconds for the lock: its writes were refused, having stored nothing.
    for (const door of ['anonymous inquiry', 'Bearer inquiry', 'registration', 'client_credentials', 'authorize', 'revocation']) {
      expect(of('first', door), report).toMatchObject({ status: 503, body: { error: 'store_unavailable' } });
    }
    for (const door of ['contact_service', 'contact_service through the SDK', 'Bearer contact_service']) {
      expect(of('first', door).body, `${door}\n${report}`).toMatchObject({ result: { isError: true, structuredContent: { error: 'store_unavailable', retryAfterSeconds: 5 } } });
    }
    // The second round was let through once the lock was given back.
    for (const a of answers.filter((a) => a.round === 'second')) {
      expect(a.status, report).toBeLessThan(400);
      expect((a.body as { result?: { isError?: boolean } }).result?.isError, report).not.toBe(true);
    }

    // Every inquiry answered 200 (or a tool result without isError) is delivered, once; none refused is.
    const accepted = answers.filter((a) => a.marker && a.status === 200 && !(a.body as { result?: { isError?: boolean } }).result?.isError).map((a) => a.marker!);
    expect(accepted.length).toBe(5);
    const deadline = Date.now() + 10_000;
    while (smtp.accepted.length < accepted.length && Date.now() < deadline) await sleep(50);
    await sleep(500);
    const delivered = smtp.accepted.map((message) => /locked: (\S+)/.exec(message.text ?? '')?.[1]);
    expect(delivered.sort()).toEqual(accepted.sort());
    const { stdout } = await promisify(execFile)(process.execPath, [`${ROOT}dist/cli.js`, 'inquiries', 'list', '--format', 'json'], {
      cwd: dir,
      env: { PATH: process.env.PATH, DATABASE_URL: `sqlite:${join(dir, 'portico.sqlite')}` },
    });
    expect((JSON.parse(stdout) as { status: string }[]).map((row) => row.status)).toEqual(Array(accepted.length).fill('sent'));
  });
});
