// POST /api/contact refuses malformed requests with 400 or 415 and the Error body, storing nothing.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inquiry, startApp, type TestApp } from '../support/app.js';

describe('POST /api/contact validation', () => {
  let api: TestApp;
  beforeAll(async () => {
    api = await startApp({ RATE_LIMITS: 'off' });
  });
  afterAll(() => api.close());

  const expectRejected = async (response: Response, status: number, code: string, mentions?: string) => {
    expect(response.status).toBe(status);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    expect(response.headers.get('cache-control')).toBe('no-store');
    const body = await response.json();
    expect(body).toMatchObject({ error: code, ok: false });
    expect(typeof body.error_description).toBe('string');
    if (mentions) expect(body.error_description).toContain(mentions);
  };

  it.each([
    ['name is missing', { name: undefined }, 'name'],
    ['name is empty', { name: '' }, 'name'],
    ['name is only spaces', { name: '   ' }, 'name'],
    ['name is longer than 120 characters', { name: 'n'.repeat(121) }, 'name'],
    ['name holds a line break', { name: 'Ana\r\nBcc: victim@example.com' }, 'name'],
    ['email is missing', { email: undefined }, 'email'],
    ['email is not an address', { email: 'not-an-address' }, 'email'],
    ['email carries a header after a line break', { email: 'ana@example.com\nBcc: x@example.com' }, 'email'],
    ['email is longer than 254 characters', { email: `${'a'.repeat(64)}@${'b'.repeat(186)}.com` }, 'email'],
    ['message is missing', { message: undefined }, 'message'],
    ['message is longer than 5000 characters', { message: 'm'.repeat(5001) }, 'message'],
    ['locale is not one of the six', { locale: 'fr' }, 'locale'],
    ['privacy is false', { privacy: false }, 'privacy'],
    ['privacy is the string "true"', { privacy: 'true' }, 'privacy'],
    ['privacy is 1', { privacy: 1 }, 'privacy'],
    ['privacy is missing', { privacy: undefined }, 'privacy'],
    ['name is a number (no coercion)', { name: 42 }, 'name'],
    ['an unknown property is sent', { phone: '+34 600 000 000' }, 'phone'],
    ['website is not a string', { website: 7 }, 'website'],
  ])('answers 400 when %s', async (_case, fields, mentions) => {
    await expectRejected(await api.post('/api/contact', inquiry(fields)), 400, 'invalid_request', mentions);
  });

  it('counts characters, not UTF-16 units: 120 emoji are a valid name', async () => {
    expect((await api.post('/api/contact', inquiry({ name: '👋'.repeat(120) }))).status).toBe(200);
    await expectRejected(await api.post('/api/contact', inquiry({ name: '👋'.repeat(121) })), 400, 'invalid_request', 'name');
  });

  it('keeps the name and the e-mail without the white space around them, and counts the name after it', async () => {
    expect((await api.post('/api/contact', inquiry({ name: '  Ana Trimmed \n', email: ' \tana.trimmed@example.com ' }))).status).toBe(200);
    const [stored] = await api.deps.inquiries.list({ limit: 1 });
    expect(stored).toMatchObject({ name: 'Ana Trimmed', email: 'ana.trimmed@example.com' });
    expect((await api.post('/api/contact', inquiry({ name: ` ${'n'.repeat(120)} ` }))).status).toBe(200);
    await expectRejected(await api.post('/api/contact', inquiry({ name: ' \n ' })), 400, 'invalid_request', 'name');
  });

  it('accepts the longest allowed values and every locale', async () => {
    for (const locale of ['es', 'en', 'ca', 'ru', 'eu', 'gl']) {
      const body = inquiry({ name: 'n'.repeat(120), message: 'm'.repeat(5000), locale });
      expect((await api.post('/api/contact', body)).status).toBe(200);
    }
  });

  it('names every problem at once', async () => {
    const response = await api.post('/api/contact', { name: '', email: 'x', privacy: false });
    const { error_description } = await response.json();
    for (const field of ['name', 'email', 'message', 'privacy']) expect(error_description).toContain(field);
  });

  it('escapes what the request put in the description, so the error body is always valid JSON', async () => {
    const key = 'quote" backslash\\ tab\t nul\u0000 lone\ud800 ñ';
    const response = await api.post('/api/contact', `{${JSON.stringify(key)}: 1, "name":"A","email":"a@example.com","message":"m","privacy":true}`);
    await expectRejected(response.clone(), 400, 'invalid_request');
    expect((await response.json()).error_description).toBe(`unknown field: ${key}`);
  });

  it.each([
    ['a JSON array', '[]'],
    ['a JSON string', '"hello"'],
    ['null', 'null'],
    ['broken JSON', '{"name": "Ana",'],
    ['an empty body', ''],
  ])('answers 400 for %s', async (_case, raw) => {
    await expectRejected(await api.post('/api/contact', raw), 400, 'invalid_request');
  });

  it('answers 400 for a prototype-pollution key instead of accepting it', async () => {
    await expectRejected(await api.post('/api/contact', `{"__proto__":{"admin":true},"name":"A","email":"a@example.com","message":"m","privacy":true}`), 400, 'invalid_request');
  });

  it.each(['text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', 'application/jsonx', 'application/merge-patch+json'])(
    'answers 415 for Content-Type %s',
    async (contentType) => {
      await expectRejected(await api.post('/api/contact', JSON.stringify(inquiry()), { 'content-type': contentType }), 415, 'unsupported_media_type');
    },
  );

  it('answers 415 when there is no Content-Type at all', async () => {
    const response = await fetch(`${api.url}/api/contact`, { method: 'POST', body: new Blob([JSON.stringify(inquiry())]) });
    await expectRejected(response, 415, 'unsupported_media_type');
  });

  it('accepts application/json with a charset parameter, in any case', async () => {
    const response = await api.post('/api/contact', inquiry(), { 'content-type': 'Application/JSON; charset=UTF-8' });
    expect(response.status).toBe(200);
  });

  it('answers 413 for a body far over the limit', async () => {
    await expectRejected(await api.post('/api/contact', inquiry({ message: 'm'.repeat(300_000) })), 413, 'payload_too_large');
  });

  it('stores nothing for a rejected request', async () => {
    const before = (await api.deps.inquiries.list({ limit: 1000 })).length;
    await api.post('/api/contact', inquiry({ privacy: false }));
    await api.post('/api/contact', 'x', { 'content-type': 'text/plain' });
    expect((await api.deps.inquiries.list({ limit: 1000 })).length).toBe(before);
  });
});
