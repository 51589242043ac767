// Every example in the OpenAPI document is valid against the schema it illustrates, as a client's validator sees it.
import { Ajv2020 } from 'ajv/dist/2020.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApp, type TestApp } from '../support/app.js';

describe('the examples of the OpenAPI document', () => {
  let api: TestApp;
  let document: { components: { schemas: Record<string, { examples?: unknown[] }> } };
  beforeAll(async () => {
    api = await startApp();
    document = await (await fetch(`${api.url}/openapi.json`)).json();
  });
  afterAll(() => api.close());

  it('illustrates the request and response messages of the contract', () => {
    const withExamples = Object.entries(document.components.schemas)
      .filter(([, schema]) => schema.examples?.length)
      .map(([name]) => name);
    for (const name of ['ContactRequest', 'ContactResponse', 'Error', 'ClientRegistrationRequest', 'ClientRegistrationResponse', 'TokenRequest', 'TokenResponse']) {
      expect(withExamples).toContain(name);
    }
  });

  it('validates every example against its own schema (JSON Schema 2020-12)', () => {
    const ajv = new Ajv2020({ strict: false, validateFormats: false, allErrors: true });
    ajv.addSchema(document, 'openapi');
    for (const [name, schema] of Object.entries(document.components.schemas)) {
      const validate = ajv.getSchema(`openapi#/components/schemas/${name}`)!;
      for (const example of schema.examples ?? []) expect(validate(example), `${name}: ${JSON.stringify(validate.errors)}`).toBe(true);
    }
    // And the validator does bite: a contact request without consent is refused.
    expect(ajv.getSchema('openapi#/components/schemas/ContactRequest')!({ name: 'A', email: 'a@example.com', message: 'm', privacy: false })).toBe(false);
  });
});
