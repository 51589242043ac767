// What the test asks the SDK host page to render (./page.ts, `window.openApp`).
export interface OpenAppOptions {
  /** Portico's MCP endpoint. */
  mcpUrl: string;
  /** The sandbox proxy page, on another origin than this host. */
  sandboxUrl: string;
  /** The McpUiHostContext: locale, theme, style variables. */
  hostContext: Record<string, unknown>;
  /** The arguments the assistant called the tool with, sent once the view is initialized. */
  toolInput: Record<string, unknown>;
  /** The result of that call, when the host already has it. */
  toolResult?: Record<string, unknown>;
  /** Whether the host lets the view call the server's tools (the `serverTools` host capability). */
  toolCalls: boolean;
  /** Answer the view's tool calls with `window.hostCallTool` (the test's) instead of forwarding them to /mcp. */
  answeredByTest?: boolean;
}
