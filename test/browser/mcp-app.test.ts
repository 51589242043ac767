// The contact-form MCP App in the official MCP Apps host: every behaviour (test/browser/mcp-app-suite.ts).
import { describeMcpApp } from './mcp-app-suite.js';

describeMcpApp('everyday', 'test/browser/mcp-app.test.ts');
