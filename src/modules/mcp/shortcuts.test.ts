// tools/list's cache: the SDK's answer is asked for once per era, and answered from then on.
import { describe, expect, it } from 'vitest';
import { toolsListCache } from './shortcuts.js';

const ENDPOINT = 'http://127.0.0.1:8080/mcp';
const sdkAnswer = (tools: unknown[]) => new Response(JSON.stringify({ jsonrpc: '2.0', id: 0, result: { tools } }), { headers: { 'content-type': 'application/json' } });

describe("tools/list's cache", () => {
  it('asks the SDK once, then answers each caller with its own id', async () => {
    let asked = 0;
    const answer = toolsListCache(async () => (asked++, sdkAnswer([{ name: 'contact_service' }])), ENDPOINT);
    expect(JSON.parse(await answer('legacy', 1))).toEqual({ result: { tools: [{ name: 'contact_service' }] }, jsonrpc: '2.0', id: 1 });
    expect(JSON.parse(await answer('legacy', 'b'))).toEqual({ result: { tools: [{ name: 'contact_service' }] }, jsonrpc: '2.0', id: 'b' });
    expect(asked).toBe(1);
  });

  it('shares one question among the requests that arrive while it is asked', async () => {
    let asked = 0;
    const answer = toolsListCache(async () => (asked++, sdkAnswer([])), ENDPOINT);
    const answers = await Promise.all([answer('modern', 1), answer('modern', 2)]);
    expect(answers.map((text) => JSON.parse(text).id)).toEqual([1, 2]);
    expect(asked).toBe(1);
  });

  it('asks again on the next request when the SDK failed, rather than failing every request after', async () => {
    let asked = 0;
    const answer = toolsListCache(async () => {
      if (asked++ === 0) throw new Error('the SDK failed');
      return sdkAnswer([]);
    }, ENDPOINT);
    await expect(answer('legacy', 1)).rejects.toThrow('the SDK failed');
    expect(JSON.parse(await answer('legacy', 2))).toEqual({ result: { tools: [] }, jsonrpc: '2.0', id: 2 });
    expect(asked).toBe(2);
  });
});
