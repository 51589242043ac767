// One contact_service call from a fresh MCP SDK client, as an agent that connects, calls and leaves.
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';

export async function callContactService(baseUrl: string, args: Record<string, unknown>) {
  const client = new Client({ name: 'node', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${baseUrl}/mcp`)));
  try {
    return await client.callTool({ name: 'contact_service', arguments: args });
  } finally {
    await client.close();
  }
}
