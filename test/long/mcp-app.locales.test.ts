// The contact-form MCP App in the official MCP Apps host: the locales the everyday run leaves out, and
// the screenshots for review (test/browser/mcp-app-suite.ts).
import { describeMcpApp } from '../browser/mcp-app-suite.js';

describeMcpApp('locales', 'test/long/mcp-app.locales.test.ts');
