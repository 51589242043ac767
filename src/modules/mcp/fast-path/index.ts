// Fast paths: two MCP requests answered beside the SDK rather than through it, because the SDK builds
// a server, registers the tool and converts its schema to JSON Schema on every request, which cost
// more than everything else such a request does but its e-mail (docs/design.md). They are optimisations, not behaviour: each takes only exactly shaped
// requests (shape.ts) and answers byte for byte what the SDK answers, which
// test/mcp/mcp.fast-path.test.ts holds for every shape it serves and refuses. Removing one is
// deleting its file and its two lines in ../routes.ts; the SDK then answers those requests itself.
//
// - tools-list.ts: tools/list, from the SDK's own result captured once per protocol revision.
// - tools-call.ts: tools/call contact_service with arguments the tool's schema accepts.
export { fastToolsListEra, toolsListCache } from './tools-list.js';
export { fastContactCall, toolCallResponses, type FastToolCall } from './tools-call.js';
