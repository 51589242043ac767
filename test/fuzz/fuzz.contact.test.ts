// POST /api/contact under random and hostile bodies: 200 exactly for a valid inquiry, else 400/415 in the Error shape, never a 5xx.
import fc from 'fast-check';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { inquiry, type TestApp } from '../support/app.js';
import { answerOf, anyJson, contentType, exchange, expectHealthy, expectPrototypeClean, expectWellFormed, hostileString, jsonText, pollutingJson, runs, startFuzzApp } from './fuzz-support.js';

type Field = 'name' | 'email' | 'message' | 'locale' | 'privacy' | 'turnstileToken' | 'website';
const REQUIRED: ReadonlySet<Field> = new Set(['name', 'email', 'message', 'privacy']);
const notString = fc.oneof(fc.integer(), fc.double(), fc.boolean(), fc.constant(null), fc.array(fc.string(), { maxLength: 2 }), fc.dictionary(fc.string(), fc.string(), { maxKeys: 2 }));

/** Per field: values the contract accepts, and values it refuses (wrong types and out-of-range strings). */
const FIELDS: Record<Field, { valid: fc.Arbitrary<unknown>; invalid: fc.Arbitrary<unknown> }> = {
  name: {
    valid: fc.constantFrom('Ana García', 'n'.repeat(120), '👋'.repeat(120), 'محمد', 'e\u0301'.repeat(60), 'Zoë \u202eevil'),
    invalid: fc.oneof(notString, fc.constantFrom('', '   ', 'n'.repeat(121), 'Ana\r\nBcc: x@example.com', 'A\u0000B', 'A\u2028B', '\u0085')),
  },
  email: {
    valid: fc.constantFrom('ana@example.com', 'a.b+tag@sub.example.org', 'user@bücher.example', "o'neil@example.co"),
    invalid: fc.oneof(notString, fc.constantFrom('', 'not-an-address', 'a@b', '.a@example.com', 'a..b@example.com', 'ana@example.com\nBcc: x@example.com', `${'a'.repeat(65)}@example.com`)),
  },
  message: {
    valid: fc.constantFrom('A demo, please', 'm'.repeat(5000), 'line one\nline two\ttab', '🏢'.repeat(5000), 'line\r\nbreaks'),
    invalid: fc.oneof(notString, fc.constantFrom('', ' \n\t ', 'm'.repeat(5001), '🏢'.repeat(5001), 'NUL\u0000inside', 'bell\u0007')),
  },
  locale: { valid: fc.constantFrom('es', 'en', 'ca', 'ru', 'eu', 'gl'), invalid: fc.oneof(notString, fc.constantFrom('fr', 'ES', 'en-GB', '', ' es')) },
  privacy: { valid: fc.constant(true), invalid: fc.constantFrom(false, 'true', 1, null, 'yes', [true], {}) },
  turnstileToken: { valid: fc.constantFrom('', 'XXXX.DUMMY.TOKEN.XXXX', 't'.repeat(2048)), invalid: fc.oneof(notString, fc.constant('t'.repeat(2049))) },
  website: { valid: fc.constantFrom('', 'https://spam.example', 'w'.repeat(2048)), invalid: fc.oneof(notString, fc.constant('w'.repeat(2049))) },
};

type Choice = { kind: 'valid' | 'invalid'; value: unknown } | { kind: 'absent' };
const choice = (field: Field): fc.Arbitrary<Choice> =>
  fc.oneof(
    { weight: 4, arbitrary: FIELDS[field].valid.map((value) => ({ kind: 'valid' as const, value })) },
    { weight: 1, arbitrary: FIELDS[field].invalid.map((value) => ({ kind: 'invalid' as const, value })) },
    { weight: 1, arbitrary: fc.constant({ kind: 'absent' as const }) },
  );
const FIELD_NAMES = Object.keys(FIELDS) as Field[];
const extraKey = fc.stringMatching(/^[a-zA-Z_][a-zA-Z0-9_]{0,11}$/).filter((key) => !(FIELD_NAMES as string[]).includes(key) && key !== 'constructor');

/** The contract's rules for a single-line and a multi-line text field (docs/contact.md, "The body"). */
// The name is checked once the white space around it is gone (String.prototype.trim, as the schema does).
const nameIsValid = (raw: string) => {
  const value = raw.trim();
  return value.length > 0 && [...value].length <= 120 && !/[\u0000-\u001f\u007f-\u009f\u2028\u2029]/u.test(value);
};
// Prose keeps tabs and line breaks; NUL and the other C0 controls are refused (PostgreSQL text cannot hold NUL either).
const messageIsValid = (value: string) => value.trim().length > 0 && [...value].length <= 5000 && !/[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/.test(value);

describe('POST /api/contact under fuzzing', () => {
  let api: TestApp;
  let serial = 0;
  const post = (body: string, headers: Record<string, string> = { 'content-type': 'application/json' }) => fetch(`${api.url}/api/contact`, { method: 'POST', headers, body }).then(answerOf);
  const storedCount = async () => (await api.deps.inquiries.list({ limit: 100_000 })).length;

  beforeAll(async () => {
    api = await startFuzzApp();
  });
  afterEach(async () => {
    await expectHealthy(api);
    expectPrototypeClean();
  });
  afterAll(() => api.close());

  it('answers any JSON text, or text that is not JSON, with 200 or a 400 Error body, never a 5xx', async () => {
    await fc.assert(
      fc.asyncProperty(jsonText, async (body) => {
        const answer = await post(body);
        expectWellFormed('/api/contact', answer, 'POST');
        expect([200, 400]).toContain(answer.status);
      }),
      runs(150),
    );
  });

  it('answers 200 exactly when every field has the type and range the contract gives it, else 400 naming each wrong field', async () => {
    const fields = fc.record(Object.fromEntries(FIELD_NAMES.map((field) => [field, choice(field)])) as Record<Field, fc.Arbitrary<Choice>>);
    await fc.assert(
      fc.asyncProperty(fields, fc.option(extraKey, { freq: 5 }), anyJson, async (chosen, extra, extraValue) => {
        const body: Record<string, unknown> = {};
        const wrong: string[] = [];
        for (const field of FIELD_NAMES) {
          const picked = chosen[field];
          if (picked.kind !== 'absent') body[field] = picked.value;
          if (picked.kind === 'invalid' || (picked.kind === 'absent' && REQUIRED.has(field))) wrong.push(field);
        }
        if (extra !== null) {
          body[extra] = extraValue;
          wrong.push(extra);
        }
        const text = JSON.stringify(body);
        const answer = await post(text);
        const json = expectWellFormed('/api/contact', answer, 'POST');
        // A generated value may carry a __proto__ or constructor key, which the JSON parser refuses before validation.
        if (/"(__proto__|constructor)":/.test(text)) {
          expect([answer.status, json.error], answer.text).toEqual([400, 'invalid_request']);
          return;
        }
        if (!wrong.length) {
          expect(answer.status, answer.text).toBe(200);
          expect(json).toEqual({ ok: true });
          return;
        }
        expect(answer.status, answer.text).toBe(400);
        expect(json.error).toBe('invalid_request');
        for (const field of wrong) expect(json.error_description, `${field} in ${answer.text}`).toContain(field);
      }),
      runs(150),
    );
  });

  it('counts code points and refuses control characters in name (and all but tab and line breaks in message): RTL marks, combining marks, lone surrogates, NUL, emoji', async () => {
    await fc.assert(
      fc.asyncProperty(hostileString(), hostileString(40), async (name, message) => {
        // JSON.stringify writes a lone surrogate as the escape \ud800, as a hostile client would.
        const answer = await post(JSON.stringify(inquiry({ name, message })));
        const json = expectWellFormed('/api/contact', answer, 'POST');
        const expected = nameIsValid(name) && messageIsValid(message) ? 200 : 400;
        expect(answer.status, `${JSON.stringify({ name, message })} -> ${answer.text}`).toBe(expected);
        if (expected === 400) expect(json.error).toBe('invalid_request');
      }),
      runs(150),
    );
  });

  it('refuses prototype-pollution keys (__proto__, constructor, prototype) at any depth with 400, storing nothing', async () => {
    const before = await storedCount();
    await fc.assert(
      fc.asyncProperty(pollutingJson(inquiry()), async (body) => {
        const answer = await post(body);
        const json = expectWellFormed('/api/contact', answer, 'POST');
        expect(answer.status, `${body} -> ${answer.text}`).toBe(400);
        expect(json.error).toBe('invalid_request');
        expectPrototypeClean();
      }),
      runs(80),
    );
    expect(await storedCount()).toBe(before);
  });

  it('serves a valid inquiry only under Content-Type application/json (any case, any parameters), else 415', async () => {
    await fc.assert(
      fc.asyncProperty(contentType, async (type) => {
        const answer = await post(JSON.stringify(inquiry()), type === undefined ? {} : { 'content-type': type });
        expectWellFormed('/api/contact', answer, 'POST');
        const mediaType = type?.split(';', 1)[0]?.trim().toLowerCase();
        expect(answer.status, `${type} -> ${answer.text}`).toBe(mediaType === 'application/json' ? 200 : 415);
      }),
      runs(80),
    );
  });

  it('accepts an Idempotency-Key of 1-255 printable ASCII characters and refuses any other with 400', async () => {
    // node:http refuses DEL and other controls in a header value (the raw-socket suite sends those).
    const latin1 = fc
      .integer({ min: 0x20, max: 0xff })
      .filter((code) => code !== 0x7f)
      .map((code) => String.fromCharCode(code));
    const key = fc.oneof(
      fc.string({ unit: fc.integer({ min: 0x21, max: 0x7e }).map((code) => String.fromCharCode(code)), minLength: 1, maxLength: 300 }),
      fc.string({ unit: latin1, maxLength: 40 }),
      fc.constantFrom('', ' ', 'a b', 'ключ', 'é', 'k'.repeat(255), 'k'.repeat(256), '\tkey\t'),
    );
    const seen = new Set<string>();
    await fc.assert(
      fc.asyncProperty(key, async (raw) => {
        const body = JSON.stringify(inquiry({ message: `idempotency ${serial++}` }));
        // Raw UTF-8 bytes, which fetch refuses to send; the server sees the value without surrounding blanks.
        const bytes = Buffer.from(raw, 'utf8').toString('latin1');
        const answer = await exchange(api.url, { method: 'POST', path: '/api/contact', headers: { 'content-type': 'application/json', 'idempotency-key': bytes }, body });
        const json = expectWellFormed('/api/contact', answer, 'POST');
        const trimmed = raw.replace(/^[ \t]+|[ \t]+$/g, '');
        if (!/^[\x21-\x7e]{1,255}$/.test(trimmed)) {
          expect(answer.status, `${JSON.stringify(raw)} -> ${answer.text}`).toBe(400);
          expect(json.error).toBe('invalid_request');
          return;
        }
        // A key used before with another body is refused (422); every body here is new.
        expect(answer.status, `${JSON.stringify(raw)} -> ${answer.text}`).toBe(seen.has(trimmed) ? 422 : 200);
        seen.add(trimmed);
      }),
      runs(100),
    );
  });
});
