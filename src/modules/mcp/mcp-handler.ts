// The MCP server (official SDK 2.x): one tool, served statelessly for 2026-07-28 and 2025-era clients.
import { createMcpHandler, McpServer } from '@modelcontextprotocol/server';
import type { ContactDeps } from '../contact/submit.js';
import { callContactTool, CONTACT_TOOL, CONTACT_TOOL_DESCRIPTION, ContactToolInput } from './contact-tool.js';

export const SERVER_INFO = { name: 'portico', title: 'Portico', version: '1.0.0' };

export function createPorticoMcpHandler(deps: ContactDeps) {
  const factory = () => {
    const server = new McpServer(SERVER_INFO, {
      instructions: 'Portico lets you send an inquiry to the team of a community and property management product with the contact_service tool.',
    });
    server.registerTool(
      CONTACT_TOOL,
      {
        title: 'Contact the team',
        description: CONTACT_TOOL_DESCRIPTION,
        inputSchema: ContactToolInput,
        annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
      },
      async (args) => callContactTool(deps, args),
    );
    return server;
  };
  // 'auto' answers one JSON body (our tool sends nothing before its result); the route turns any SSE framing into JSON.
  return createMcpHandler(factory, { legacy: 'stateless', responseMode: 'auto' });
}
