// A client generated from /openapi.json (openapi-typescript + openapi-fetch) compiles under strict TypeScript and runs the token and contact calls.
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, startApp, type TestApp } from '../support/app.js';
import { testTool } from '../support/tools.js';

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const TSC = join(ROOT, 'node_modules/.bin/tsc');
// openapi-typescript is no part of an install of Portico (tools/openapi-lint).
const OPENAPI_TS = testTool('openapi-lint', 'node_modules/openapi-typescript/dist/index.mjs');
type OpenApiTs = { default(schema: object): Promise<unknown>; astToString(ast: unknown): string };

// The integrator's settings: strict, ESM for Node. The folder sits under the repo (in .tmp/, gitignored), so
// `openapi-fetch` and `@types/node` resolve from its node_modules and its package.json makes .ts files ESM.
const TSCONFIG = {
  compilerOptions: {
    target: 'ES2023',
    lib: ['ES2023'],
    module: 'NodeNext',
    moduleResolution: 'NodeNext',
    types: ['node'],
    strict: true,
    noUncheckedIndexedAccess: true,
    verbatimModuleSyntax: true,
    noEmit: true,
  },
  include: ['*.ts'],
};

// docs/oauth.md section 2 with the generated types. The two calls marked @ts-expect-error are sent
// anyway (tsx does not typecheck), to show the server refuses what the types refuse.
const CLIENT = `
import createClient from 'openapi-fetch';
import type { paths } from './schema.js';

const client = createClient<paths>({ baseUrl: process.env.BASE_URL });
const print = (step: string, result: object) => console.log(JSON.stringify({ step, ...result }));
const form = (body: object) => new URLSearchParams(body as Record<string, string>).toString();

const registration = await client.POST('/oauth/register', {
  body: { client_name: 'Generated client', grant_types: ['client_credentials'], scope: 'contact:write' },
});
if (!registration.data?.client_secret) throw new Error('registration failed: ' + JSON.stringify(registration.error));
const { client_id, client_secret } = registration.data;
print('register', { status: registration.response.status, client_id, grant_types: registration.data.grant_types });

// RFC 6749 section 2.3.1: HTTP Basic of the form-urlencoded id and secret; the body is a form.
const basic = btoa(encodeURIComponent(client_id) + ':' + encodeURIComponent(client_secret));
const token = await client.POST('/oauth/token', {
  body: { grant_type: 'client_credentials', scope: 'contact:write' },
  headers: { authorization: 'Basic ' + basic, 'content-type': 'application/x-www-form-urlencoded' },
  bodySerializer: form,
});
if (!token.data) throw new Error('token failed: ' + JSON.stringify(token.error));
const tokenType: 'Bearer' = token.data.token_type;
const expiresIn: number = token.data.expires_in;
print('token', { status: token.response.status, token_type: tokenType, expires_in: expiresIn, scope: token.data.scope });

const auth = { authorization: 'Bearer ' + token.data.access_token };
const contact = await client.POST('/api/contact', {
  params: { header: { 'Idempotency-Key': 'generated-client-1' } },
  headers: auth,
  body: { name: 'Ana García', email: 'ana@example.com', message: 'A demo for 40 buildings, please.', locale: 'es', privacy: true },
});
const ok: boolean | undefined = contact.data?.ok;
print('contact', { status: contact.response.status, body: contact.data ?? contact.error, ok });

const valid = { name: 'Ana García', email: 'ana@example.com', message: 'Again.', locale: 'es' } as const;
// @ts-expect-error privacy is the constant true
const notConsented = await client.POST('/api/contact', { headers: auth, body: { ...valid, privacy: 'yes' } });
// @ts-expect-error ContactRequest has no other properties
const unknownField = await client.POST('/api/contact', { headers: auth, body: { ...valid, privacy: true, phone: '+34 600 000 000' } });
print('refused', { statuses: [notConsented.response.status, unknownField.response.status], codes: [notConsented.error?.error, unknownField.error?.error] });
`;

describe.skipIf(!OPENAPI_TS)('a client generated from the OpenAPI document', () => {
  let api: TestApp;
  let dir: string;
  beforeAll(async () => {
    api = await startApp({}, { port: await freePort() });
    await mkdir(join(ROOT, '.tmp'), { recursive: true });
    dir = await mkdtemp(join(ROOT, '.tmp', 'generated-client-'));
    const document = await (await fetch(`${api.url}/openapi.json`)).json();
    const { default: openapiTS, astToString } = (await import(pathToFileURL(OPENAPI_TS!).href)) as OpenApiTs;
    await writeFile(join(dir, 'schema.ts'), astToString(await openapiTS(document)));
    await writeFile(join(dir, 'client.ts'), CLIENT);
    await writeFile(join(dir, 'tsconfig.json'), JSON.stringify(TSCONFIG, null, 2));
  });
  afterAll(async () => {
    await api.close();
    await rm(dir, { recursive: true, force: true });
  });
  const typecheck = () =>
    run(TSC, ['-p', join(dir, 'tsconfig.json'), '--pretty', 'false'], { cwd: dir, timeout: 60_000 }).then(
      () => ({ code: 0, stdout: '' }),
      (error: { code: number; stdout: string }) => ({ code: error.code, stdout: error.stdout }),
    );

  it('compiles with strict TypeScript, the generated types included', async () => {
    expect(await typecheck()).toEqual({ code: 0, stdout: '' });
  }, 60_000);

  it('refuses, at compile time, a contact request without consent or with an unknown property', async () => {
    const unmarked = CLIENT.replace(/^\/\/ @ts-expect-error.*\n/gm, '');
    // Where tsc reports a problem: client.ts(line,column), 1-based.
    const at = (needle: string) => {
      const before = unmarked.slice(0, unmarked.indexOf(needle)).split('\n');
      return `client.ts(${before.length},${before.at(-1)!.length + 1})`;
    };
    await writeFile(join(dir, 'client.ts'), unmarked);
    try {
      const { code, stdout } = await typecheck();
      expect(code).toBe(2);
      const errors = stdout
        .split('\n')
        .filter((line) => line.startsWith('client.ts('))
        .map((line) => line.replace(/ in type '.*$/, ''));
      expect(errors).toEqual([
        `${at("privacy: 'yes'")}: error TS2322: Type 'string' is not assignable to type 'true'.`,
        `${at('phone')}: error TS2353: Object literal may only specify known properties, and 'phone' does not exist`,
      ]);
    } finally {
      await writeFile(join(dir, 'client.ts'), CLIENT);
    }
  }, 60_000);

  it('registers, gets a Bearer token with HTTP Basic and a form body, and sends an inquiry through the API channel', async () => {
    const { stdout } = await run(process.execPath, ['--import', 'tsx', join(dir, 'client.ts')], {
      cwd: ROOT,
      env: { PATH: process.env.PATH, BASE_URL: api.url },
      timeout: 30_000,
    });
    const [register, token, contact, refused] = stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(register).toMatchObject({ step: 'register', status: 201, grant_types: ['client_credentials'] });
    expect(token).toEqual({ step: 'token', status: 200, token_type: 'Bearer', expires_in: 3600, scope: 'contact:write' });
    expect(contact).toEqual({ step: 'contact', status: 200, body: { ok: true }, ok: true });
    expect(refused).toEqual({ step: 'refused', statuses: [400, 400], codes: ['invalid_request', 'invalid_request'] });
    const [inquiry] = await api.deps.inquiries.list({ limit: 1 });
    expect(inquiry).toMatchObject({ channel: 'api', clientId: register.client_id, idempotencyKey: `${register.client_id} generated-client-1`, status: 'sent' });
  }, 30_000);
});
