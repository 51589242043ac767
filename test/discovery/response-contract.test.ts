// The check that every test's responses go through (test/support/openapi-contract.ts) catches what
// it is there to catch: an undocumented status, a wrong content type or body, a missing header.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApp, type TestApp } from '../support/app.js';
import { ResponseContract, type Exchange } from '../support/openapi-contract.js';

describe('the response check against the OpenAPI document', () => {
  let api: TestApp;
  let contract: ResponseContract;
  beforeAll(async () => {
    api = await startApp({ PUBLIC_URL: 'https://api.portico.example' });
    contract = new ResponseContract(await (await fetch(`${api.url}/openapi.json`)).json());
  });
  afterAll(() => api.close());

  const json = { 'content-type': 'application/json; charset=utf-8' };
  const error = (code: string) => JSON.stringify({ error: code, error_description: 'x', ok: false });
  const exchange = (fields: Partial<Exchange>): Exchange => ({ method: 'POST', route: '/api/contact', url: '/api/contact', status: 200, headers: json, body: '', ...fields });

  it('passes a documented answer: the contact 400 with the Error body', () => {
    expect(contract.check(exchange({ status: 400, body: error('invalid_request') }))).toEqual([]);
  });

  it('flags a status the operation does not document', () => {
    expect(contract.check(exchange({ status: 418, body: error('invalid_request') }))).toEqual([expect.stringContaining('status 418 is not documented')]);
  });

  it('flags a body that does not match the schema, and an error code outside the catalogue', () => {
    expect(contract.check(exchange({ status: 400, body: '{"error":"oops"}' }))).toEqual([expect.stringContaining('body does not match the schema')]);
    expect(contract.check(exchange({ status: 400, body: error('no_such_code') }))).toEqual([expect.stringContaining('body does not match the schema')]);
  });

  it('flags a content type the response does not list', () => {
    expect(contract.check(exchange({ status: 400, headers: { 'content-type': 'text/plain' }, body: 'bad' }))).toEqual([
      expect.stringContaining('content type text/plain is not one of application/json'),
    ]);
  });

  it('flags a 429 without the Retry-After the contract requires, and a non-integer one', () => {
    const limited = { status: 429, body: error('rate_limited') };
    const rateHeaders = { 'ratelimit-limit': '8', 'ratelimit-remaining': '0', 'ratelimit-reset': '60', 'ratelimit-policy': '8;w=3600' };
    expect(contract.check(exchange({ ...limited, headers: { ...json, ...rateHeaders } }))).toEqual([expect.stringContaining('required header Retry-After is missing')]);
    expect(contract.check(exchange({ ...limited, headers: { ...json, ...rateHeaders, 'retry-after': 'soon' } }))).toEqual([expect.stringContaining('Retry-After is not an integer')]);
    expect(contract.check(exchange({ ...limited, headers: { ...json, ...rateHeaders, 'retry-after': '60' } }))).toEqual([]);
  });

  it('flags a body where the document declares none', () => {
    expect(contract.check(exchange({ method: 'OPTIONS', status: 204, body: '{}' }))).toEqual([expect.stringContaining('a body is sent where the document declares none')]);
  });

  it('accepts the not-found handler’s 404, and its 405 only with Allow', () => {
    expect(contract.check(exchange({ route: undefined, url: '/nope', status: 404, body: error('not_found') }))).toEqual([]);
    expect(contract.check(exchange({ method: 'GET', route: undefined, status: 405, body: error('method_not_allowed') }))).toEqual(['GET /api/contact -> 405: 405 without Allow']);
  });

  it('flags an operation the document does not have', () => {
    expect(contract.check(exchange({ method: 'DELETE' }))).toEqual([expect.stringContaining('the document has no DELETE /api/contact')]);
  });
});
