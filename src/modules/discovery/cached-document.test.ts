import { describe, expect, it } from 'vitest';
import { cachedDocument } from './cached-document.js';

describe('a cached discovery document', () => {
  it('is serialized once, when prepared, and never again per request', () => {
    let builds = 0;
    const document = cachedDocument(() => `{"n":${++builds}}`, 'application/json');
    document.prepare();
    document.prepare();
    const replies = [document.reply(undefined), document.reply(undefined), document.reply('"other"')];
    expect(builds).toBe(1);
    expect(replies.map((reply) => String(reply.body))).toEqual(['{"n":1}', '{"n":1}', '{"n":1}']);
  });

  it('answers its own ETag with 304 and no body (RFC 9110 section 13.1.2)', () => {
    const document = cachedDocument(() => '{}', 'application/json');
    const etag = document.reply(undefined).headers!.etag!;
    const notModified = document.reply(`W/"x", ${etag}`);
    expect([notModified.status, notModified.body]).toEqual([304, undefined]);
    expect(document.reply('*').status).toBe(304);
    expect(document.reply('"stale"').status).toBe(200);
  });
});
