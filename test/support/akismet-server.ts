// A loopback server speaking Akismet's comment-check protocol (https://akismet.com/developers/detailed-docs/comment-check/),
// with the answers Akismet gives.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * The message chooses the answer, as Akismet's own test values do: an author e-mail of
 * `akismet-guaranteed-spam@example.com` (Akismet's documented trigger) or a message holding `blatant spam` is
 * spam, `blatant spam` with `X-akismet-pro-tip: discard`; `akismet: stall` never answers, `akismet: 500`
 * answers 500, `akismet: invalid` answers `invalid` with Akismet's debug header. A wrong api_key is `invalid` too.
 */
export interface TestAkismet {
  /** The base address, as AKISMET_URL. */
  url: string;
  key: string;
  /** Each comment-check's form, in arrival order. */
  calls: Record<string, string>[];
  close(): Promise<void>;
}

export async function startAkismet(key = 'test-akismet-key'): Promise<TestAkismet> {
  const calls: Record<string, string>[] = [];
  const server: Server = createServer((request, response) => {
    let raw = '';
    request.on('data', (chunk) => (raw += chunk));
    request.on('end', () => {
      if (request.method !== 'POST' || request.url !== '/1.1/comment-check' || request.headers['content-type'] !== 'application/x-www-form-urlencoded') {
        return response.writeHead(404).end();
      }
      const form = Object.fromEntries(new URLSearchParams(raw));
      calls.push(form);
      const text = (status: number, body: string, headers: Record<string, string> = {}) => response.writeHead(status, { 'content-type': 'text/plain', ...headers }).end(body);
      const content = form.comment_content ?? '';
      if (content.includes('akismet: stall')) return;
      if (content.includes('akismet: 500')) return text(500, 'Internal Server Error');
      if (form.api_key !== key || content.includes('akismet: invalid')) return text(200, 'invalid', { 'X-akismet-debug-help': 'Empty "blog" value' });
      if (content.includes('blatant spam')) return text(200, 'true', { 'X-akismet-pro-tip': 'discard' });
      return text(200, String(form.comment_author_email === 'akismet-guaranteed-spam@example.com'));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    key,
    calls,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
