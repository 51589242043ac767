// The schemas Portico publishes (the tool's input and output in tools/list, OpenAPI's ContactRequest) as
// validators in two languages read them: Ajv, and Python's jsonschema (Debian's python3-jsonschema) with
// its format checker. Both accept the documented arguments and refuse the invalid ones alike, and every
// pattern gives one verdict in ECMA-262 with and without the u flag and in Python's re. Outcomes of real
// tool calls match the outputSchema; the SDK client checks the delivered one itself.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, startApp, type TestApp } from '../support/app.js';

// Debian's Python, where .ci/run installs python3-jsonschema; another python3 on PATH may lack it.
const PYTHON = existsSync('/usr/bin/python3') ? '/usr/bin/python3' : 'python3';
const hasJsonschema = spawnSync(PYTHON, ['-c', 'import jsonschema']).status === 0;
if (!hasJsonschema) process.stderr.write("SKIPPED the Python half of test/mcp/mcp.portable-schemas.test.ts: python3's jsonschema is missing. Install Debian's python3-jsonschema (as .ci/run does).\n");

type Schema = Record<string, unknown>;

const VALID = [
  { name: 'Ana García', email: 'ana@example.com', message: 'We manage 40 buildings and would like a demo.', locale: 'es', privacy: true },
  { name: 'Ana', email: 'ana@example.com', message: 'A demo, please: asked through my assistant', privacy: true },
  { name: 'Jon', email: 'jon.o+crm@mail.example.es', message: 'Kaixo', locale: 'eu', privacy: true },
];
const INVALID = [
  { name: 'X', email: 'not-an-email', message: 'hi', privacy: false },
  { name: 'Ana', email: 'ana..garcia@example.com', message: 'Hi', privacy: true },
  { name: 'Ana', email: '.ana@example.com', message: 'Hi', privacy: true },
  { name: 'Ana', email: 'ana@example', message: 'Hi', privacy: true },
  { name: 'Ana', email: 'ana@-example.com', message: 'Hi', privacy: true },
  { name: 'Ana', email: 'ana@example.com', message: 'Hi', privacy: true, locale: 'fr' },
  { name: 'Ana', email: 'ana@example.com', message: 'Hi', privacy: true, turnstileToken: 'no such field for the tool' },
  { name: '', email: 'ana@example.com', message: 'Hi', privacy: true },
];
// Strings that tell regular-expression dialects apart: astral letters, surrogates, non-BMP digits, hyphens.
const PROBES = ['ana@example.com', 'ana@𝒳𝒴.com', '𝒳@example.com', 'ana@例え.テスト', 'ana@x.𝟙com', 'ana@x-.com', 'a@b.c-', 'ana@example.com\n', ' ana@example.com', 'ana@🙂.com'];

/** Python's verdicts: each instance against `schema` (Draft 2020-12, formats checked), and each pattern on each probe. */
function python(schema: Schema, instances: unknown[], patterns: string[]): { valid: boolean[]; matches: boolean[][] } {
  const script = `
import json, re, sys
from jsonschema import Draft202012Validator
job = json.load(sys.stdin)
validator = Draft202012Validator(job["schema"], format_checker=Draft202012Validator.FORMAT_CHECKER)
print(json.dumps({
  "valid": [validator.is_valid(i) for i in job["instances"]],
  "matches": [[re.search(p, s) is not None for s in job["probes"]] for p in job["patterns"]],
}))`;
  return JSON.parse(execFileSync(PYTHON, ['-c', script], { input: JSON.stringify({ schema, instances, patterns, probes: PROBES }) }).toString()) as {
    valid: boolean[];
    matches: boolean[][];
  };
}

/** Every `pattern` in a schema, however deep. */
function patternsOf(schema: unknown): string[] {
  if (schema === null || typeof schema !== 'object') return [];
  return Object.entries(schema).flatMap(([key, value]) => (key === 'pattern' && typeof value === 'string' ? [value] : patternsOf(value)));
}

function ajv(schema: Schema) {
  const validator = new Ajv2020({ strict: false, allErrors: true });
  (addFormats as unknown as (ajv: Ajv2020) => void)(validator);
  return validator.compile(schema);
}

describe('the schemas Portico publishes, in the validators of two languages', () => {
  let api: TestApp;
  let client: Client;
  let tool: { inputSchema: Schema; outputSchema?: Schema };
  let contactRequest: Schema;
  beforeAll(async () => {
    api = await startApp({ RATE_LIMITS: 'contact=2/h' }, { port: await freePort() });
    client = new Client({ name: 'validator', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${api.url}/mcp`)));
    tool = (await client.listTools()).tools[0] as unknown as typeof tool;
    const openapi = (await (await fetch(`${api.url}/openapi.json`)).json()) as { components: { schemas: Record<string, Schema> } };
    contactRequest = { ...openapi.components.schemas.ContactRequest!, $schema: 'https://json-schema.org/draft/2020-12/schema' };
  });
  afterAll(async () => {
    await client.close();
    await api.close();
  });

  const forTool = (args: Record<string, unknown>) => Object.fromEntries(Object.entries(args).filter(([key]) => key !== 'turnstileToken'));

  it("accepts the documented arguments and refuses the invalid ones with Ajv, in the tool's input schema and in OpenAPI's ContactRequest", () => {
    const input = ajv(tool.inputSchema);
    expect(VALID.map((args) => input(args))).toEqual(VALID.map(() => true));
    expect(INVALID.map((args) => input(args))).toEqual(INVALID.map(() => false));
    const request = ajv(contactRequest);
    expect(VALID.map((args) => request(args))).toEqual(VALID.map(() => true));
    expect(INVALID.filter((args) => !('turnstileToken' in args)).map((args) => request(args))).toEqual(INVALID.filter((args) => !('turnstileToken' in args)).map(() => false));
  });

  it.skipIf(!hasJsonschema)("accepts the documented arguments and refuses the invalid ones with Python's jsonschema, as Ajv does", () => {
    const verdicts = python(tool.inputSchema, [...VALID, ...INVALID], []);
    expect(verdicts.valid).toEqual([...VALID.map(() => true), ...INVALID.map(() => false)]);
    const valid = VALID.map(forTool);
    expect(python(contactRequest, valid, []).valid).toEqual(valid.map(() => true));
  });

  it('publishes patterns that give one verdict in ECMA-262 with and without the u flag, and in Python', () => {
    const patterns = [...new Set([...patternsOf(tool.inputSchema), ...patternsOf(tool.outputSchema), ...patternsOf(contactRequest)])];
    expect(patterns.length).toBeGreaterThan(0);
    const plain = patterns.map((pattern) => PROBES.map((probe) => new RegExp(pattern).test(probe)));
    const unicode = patterns.map((pattern) => PROBES.map((probe) => new RegExp(pattern, 'u').test(probe)));
    expect(unicode).toEqual(plain);
    if (hasJsonschema) expect(python({}, [], patterns).matches).toEqual(plain);
  });

  it("describes every outcome's structured content in its outputSchema: sent, refused by validation, and refused by a quota", async () => {
    expect(tool.outputSchema).toMatchObject({ type: 'object', required: ['ok'] });
    const output = ajv(tool.outputSchema!);
    // The SDK client validates the delivered result against the outputSchema itself; the refusals are checked here.
    const sent = await client.callTool({ name: 'contact_service', arguments: VALID[0]! });
    const invalid = await client.callTool({ name: 'contact_service', arguments: INVALID[0]! });
    await client.callTool({ name: 'contact_service', arguments: VALID[1]! });
    const limited = await client.callTool({ name: 'contact_service', arguments: VALID[2]! });
    expect([sent, invalid, limited].map((result) => result.structuredContent)).toEqual([
      { ok: true },
      { ok: false, error: 'invalid_request', fields: ['email', 'privacy'] },
      { ok: false, error: 'rate_limited', retryAfterSeconds: expect.any(Number) },
    ]);
    for (const result of [sent, invalid, limited]) expect(output(result.structuredContent), JSON.stringify(output.errors)).toBe(true);
    if (hasJsonschema)
      expect(
        python(
          tool.outputSchema!,
          [sent, invalid, limited].map((result) => result.structuredContent),
          [],
        ).valid,
      ).toEqual([true, true, true]);
  });
});
