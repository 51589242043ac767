// GET and POST /oauth/authorize under fuzzed parameters: HTML pages or redirects to a registered URI only, never a 5xx (D7).
import fc from 'fast-check';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { TestApp } from '../support/app.js';
import { exchange, expectHealthy, expectPrototypeClean, expectWellFormed, hostileString, runs, startFuzzApp, type Answer } from './fuzz-support.js';

const REDIRECTS = ['https://client.example/cb', 'http://127.0.0.1/cb', 'com.example.app:/cb'];
const HOSTILE_NAME = '<script>alert(1)</script>\u202e"\'&';
// RFC 7636 appendix B: this verifier's S256 challenge.
const VERIFIER = 'dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk';
const CHALLENGE = 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM';
const REDIRECT_ERRORS = ['invalid_request', 'unsupported_response_type', 'unauthorized_client', 'invalid_scope', 'invalid_target', 'access_denied'];

/** The URI a redirect goes to, without its query: scheme, authority and path. */
const target = (uri: string) => {
  const url = new URL(uri);
  return `${url.protocol}//${url.host}${url.pathname}`;
};
/** What a value becomes once form-encoded and decoded again (a lone surrogate turns into U+FFFD). */
const roundTrip = (value: string) => new URLSearchParams(new URLSearchParams({ v: value }).toString()).get('v');

describe('/oauth/authorize under fuzzing', () => {
  let api: TestApp;
  let clientId: string;
  let clientSecret: string;
  let publicId: string;
  let machineId: string;

  const registerClient = async (metadata: unknown) =>
    JSON.parse((await exchange(api.url, { method: 'POST', path: '/oauth/register', headers: { 'content-type': 'application/json' }, body: JSON.stringify(metadata) })).text) as {
      client_id: string;
      client_secret: string;
    };
  const register = async (metadata: unknown) => (await registerClient(metadata)).client_id;
  /** What a browser does: the consent page for the confidential client, its cookie and consent id. */
  const consentPage = async () => {
    const query = new URLSearchParams({ client_id: clientId, redirect_uri: REDIRECTS[0]!, response_type: 'code', code_challenge: CHALLENGE, code_challenge_method: 'S256', state: 'st' });
    const page = await exchange(api.url, { method: 'GET', path: `/oauth/authorize?${query}` });
    expect(page.status).toBe(200);
    return { cookie: page.headers.get('set-cookie')!.split(';')[0]!, consent: /name="consent" value="([^"]+)"/.exec(page.text)![1]! };
  };

  /** A redirect goes only to the presented, registered URI, with iss, a known error or a code, and the state sent. */
  const expectSafeRedirect = (answer: Answer, presented: string, state: string | undefined, context: string) => {
    const location = new URL(answer.headers.get('location')!);
    expect(target(location.href), context).toBe(target(presented));
    expect(location.searchParams.get('iss'), context).toBe(api.url);
    const error = location.searchParams.get('error');
    if (error !== null) expect(REDIRECT_ERRORS, context).toContain(error);
    else expect(location.searchParams.get('code'), context).toMatch(/^[A-Za-z0-9_-]{43}$/);
    // RFC 6749 section 3.1: a parameter sent without a value is treated as omitted.
    expect(location.searchParams.get('state') ?? undefined, context).toBe(state === undefined || state === '' ? undefined : (roundTrip(state) ?? undefined));
    return location;
  };

  beforeAll(async () => {
    api = await startFuzzApp();
    ({ client_id: clientId, client_secret: clientSecret } = await registerClient({ client_name: HOSTILE_NAME, redirect_uris: REDIRECTS, grant_types: ['authorization_code', 'refresh_token'] }));
    publicId = await register({ token_endpoint_auth_method: 'none', redirect_uris: [REDIRECTS[1]] });
    machineId = await register({ grant_types: ['client_credentials'] });
  });
  afterEach(async () => {
    await expectHealthy(api);
    expectPrototypeClean();
  });
  afterAll(() => api.close());

  it('answers any authorization request with the consent page, an HTML error page, or a redirect to the registered URI; an unknown client or URI never redirects', async () => {
    const value: Record<string, fc.Arbitrary<string>> = {
      client_id: fc.oneof(fc.constantFrom(clientId, publicId, machineId, `${clientId} `, clientId.toUpperCase()), hostileString(3)),
      redirect_uri: fc.oneof(
        fc.constantFrom(...REDIRECTS, 'http://127.0.0.1:5555/cb', 'https://client.example/cb/', 'https://client.example/cb?x=1', 'https://evil.example/cb', 'https://client.example/cb#x'),
        hostileString(3),
      ),
      response_type: fc.oneof(fc.constantFrom('code', 'token', 'code id_token'), hostileString(2)),
      code_challenge: fc.oneof(fc.constant(CHALLENGE), fc.stringMatching(/^[A-Za-z0-9._~-]{40,130}$/), hostileString(2)),
      code_challenge_method: fc.oneof(fc.constantFrom('S256', 'plain', 's256'), hostileString(2)),
      scope: fc.oneof(fc.constantFrom('contact:write', 'mcp:invoke docs:read', 'admin', 'constructor', ''), hostileString(3)),
      resource: fc.oneof(fc.constantFrom(`${api.url}/mcp`, `${api.url}/api/contact`, 'https://evil.example'), hostileString(2)),
      state: hostileString(4),
      ui_locales: fc.oneof(fc.constantFrom('en', 'ru gl', 'xx'), hostileString(2)),
    };
    const name = fc.constantFrom(...Object.keys(value), '__proto__', 'constructor', 'x');
    const pair = name.chain((n) => (Object.hasOwn(value, n) ? value[n]! : hostileString(2)).map((v) => [n, v] as [string, string]));
    // Most runs carry a well-formed request, so the fuzz reaches past the client and URI checks.
    const base = fc.record(
      {
        client_id: fc.constantFrom(clientId, publicId),
        redirect_uri: fc.constantFrom(...REDIRECTS),
        response_type: fc.constant('code'),
        code_challenge: fc.constant(CHALLENGE),
        code_challenge_method: fc.constant('S256'),
      },
      { requiredKeys: [] },
    );
    const raw = fc.constantFrom('', '&%ZZ', '&a=%E0%A4%A', '&__proto__[polluted]=1', '&a[b]=c', '&&&=', '&state', '&%00=%00');
    await fc.assert(
      fc.asyncProperty(base, fc.array(pair, { maxLength: 4 }), raw, fc.constantFrom('GET', 'POST'), async (fields, extra, suffix, method) => {
        const pairs = [...Object.entries(fields), ...extra];
        const query = new URLSearchParams(pairs).toString() + suffix;
        const answer =
          method === 'GET'
            ? await exchange(api.url, { method, path: `/oauth/authorize?${query}`, headers: { 'accept-language': 'en' } })
            : await exchange(api.url, { method, path: '/oauth/authorize', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: query });
        const context = `${method} ${query} -> ${answer.status} ${answer.headers.get('location') ?? answer.text.slice(0, 120)}`;
        expectWellFormed('/oauth/authorize', answer, method);
        const sent = (n: string) => new URLSearchParams(query).getAll(n);
        const [client] = sent('client_id');
        const [redirect] = sent('redirect_uri');
        const known = sent('client_id').length === 1 && (client === clientId || client === publicId);
        const registered = sent('redirect_uri').length === 1 && REDIRECTS.includes(redirect!) && (client === clientId || redirect === REDIRECTS[1]);
        if (known && registered) expect([200, 302], context).toContain(answer.status);
        if (answer.status === 302) {
          expect(known, `redirected for a client it does not know: ${context}`).toBe(true);
          expect(sent('redirect_uri').length, context).toBe(1);
          expectSafeRedirect(answer, redirect!, sent('state').length === 1 ? sent('state')[0] : undefined, context);
        } else if (answer.status === 200) {
          expect(answer.headers.get('content-type'), context).toMatch(/^text\/html/);
          expect(answer.headers.get('x-frame-options'), context).toBe('DENY');
          expect(answer.text, context).toContain('name="consent"');
          expect(answer.text, context).not.toContain('<script>alert(1)</script>');
        } else {
          expect([400, 403], context).toContain(answer.status);
          expect(answer.headers.get('location'), context).toBeNull();
        }
      }),
      runs(150),
    );
  });

  it('answers any consent decision with a redirect only for an unspent consent from the same browser and origin; else an HTML 400 or 403', async () => {
    const decision = fc.record({
      consent: fc.constantFrom('real', 'hostile', 'twice', 'absent'),
      cookie: fc.constantFrom('real', 'other', 'hostile', 'absent'),
      origin: fc.constantFrom(undefined, 'ours', 'null', 'https://evil.example'),
      secFetchSite: fc.constantFrom(undefined, 'same-origin', 'same-site', 'cross-site', 'none'),
      decision: fc.oneof(fc.constantFrom('approve', 'deny'), hostileString(2)),
      extra: fc.array(fc.tuple(fc.constantFrom('decision', 'locale', 'state', '__proto__', 'x'), hostileString(2)), { maxLength: 3 }),
      hostile: hostileString(3),
    });
    await fc.assert(
      fc.asyncProperty(decision, async (d) => {
        const real = await consentPage();
        const form: [string, string][] = [];
        if (d.consent === 'real' || d.consent === 'twice') form.push(['consent', real.consent]);
        if (d.consent === 'twice') form.push(['consent', real.consent]);
        if (d.consent === 'hostile') form.push(['consent', d.hostile]);
        form.push(['decision', d.decision], ...d.extra);
        const cookie = {
          real: real.cookie,
          other: 'portico_browser=someone-else',
          hostile: `portico_browser=${encodeURIComponent(d.hostile.replace(/[\ud800-\udfff]/g, ''))}; x=${d.hostile.length}`,
          absent: undefined,
        }[d.cookie];
        const origin = d.origin === 'ours' ? api.url : d.origin;
        const headers: Record<string, string> = { 'content-type': 'application/x-www-form-urlencoded' };
        if (cookie !== undefined) headers.cookie = cookie;
        if (origin !== undefined) headers.origin = origin;
        if (d.secFetchSite !== undefined) headers['sec-fetch-site'] = d.secFetchSite;
        const body = new URLSearchParams(form).toString();
        const answer = await exchange(api.url, { method: 'POST', path: '/oauth/authorize', headers, body });
        const context = `${body} ${JSON.stringify(headers)} -> ${answer.status} ${answer.headers.get('location') ?? answer.text.slice(0, 120)}`;
        expectWellFormed('/oauth/authorize', answer, 'POST');
        const sameSite = d.secFetchSite === undefined || d.secFetchSite === 'same-origin';
        const originOk = origin === undefined || origin === api.url || (origin === 'null' && d.secFetchSite === 'same-origin');
        const valid = d.consent === 'real' && d.cookie === 'real' && sameSite && originOk;
        if (!valid) {
          expect([400, 403], context).toContain(answer.status);
          expect(answer.headers.get('content-type'), context).toMatch(/^text\/html/);
          return;
        }
        expect(answer.status, context).toBe(303);
        const decisions = form.filter(([k]) => k === 'decision').map(([, v]) => v);
        const location = expectSafeRedirect(answer, REDIRECTS[0]!, 'st', context);
        expect(location.searchParams.get('error'), context).toBe(decisions.length === 1 && decisions[0] === 'approve' ? null : 'access_denied');
      }),
      runs(100),
    );
  });

  it('exchanges a fresh code for tokens only with its redirect_uri and PKCE verifier, else 400 with an RFC 6749 code', async () => {
    // Weighted towards the real values, so about one run in five is a valid exchange.
    const field = (real: string) => fc.oneof({ weight: 5, arbitrary: fc.constant(real) }, fc.constant(undefined), hostileString(3), fc.constant(`${real}x`));
    const form = fc.record({
      code: fc.oneof({ weight: 5, arbitrary: fc.constant('real') }, fc.constantFrom('hostile', 'absent')),
      redirect_uri: field(REDIRECTS[0]!),
      code_verifier: field(VERIFIER),
      resource: fc.oneof({ weight: 4, arbitrary: fc.constant(null) }, fc.constant('https://evil.example'), hostileString(2)),
    });
    const authorization = `Basic ${Buffer.from(`${clientId}:${clientSecret}`).toString('base64')}`;
    await fc.assert(
      fc.asyncProperty(form, hostileString(3), async (f, hostile) => {
        const { cookie, consent } = await consentPage();
        const approved = await exchange(api.url, {
          method: 'POST',
          path: '/oauth/authorize',
          headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
          body: new URLSearchParams({ consent, decision: 'approve' }).toString(),
        });
        const code = new URL(approved.headers.get('location')!).searchParams.get('code')!;
        const params: [string, string][] = [['grant_type', 'authorization_code']];
        if (f.code !== 'absent') params.push(['code', f.code === 'real' ? code : hostile]);
        for (const name of ['redirect_uri', 'code_verifier', 'resource'] as const) if (f[name] !== undefined && f[name] !== null) params.push([name, f[name]!]);
        const body = new URLSearchParams(params).toString();
        const answer = await exchange(api.url, { method: 'POST', path: '/oauth/token', headers: { authorization, 'content-type': 'application/x-www-form-urlencoded' }, body });
        const context = `${body} -> ${answer.status} ${answer.text}`;
        const json = expectWellFormed('/oauth/token', answer, 'POST');
        const sent = (name: string) => new URLSearchParams(body).get(name) || undefined;
        const valid = f.code === 'real' && sent('redirect_uri') === REDIRECTS[0] && sent('code_verifier') === VERIFIER && sent('resource') === undefined;
        if (valid) {
          expect([answer.status, json.token_type], context).toEqual([200, 'Bearer']);
          return;
        }
        expect(answer.status, context).toBe(400);
        expect(['invalid_request', 'invalid_grant', 'invalid_target'], context).toContain(json.error);
      }),
      runs(80),
    );
  });
});
