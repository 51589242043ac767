// Corrections to the MCP SDK's JSON-RPC errors, until @modelcontextprotocol/server fixes them upstream.

interface Issue {
  path: (string | number)[];
  message: string;
}

const isIssueList = (value: unknown): value is Issue[] =>
  Array.isArray(value) &&
  value.length > 0 &&
  (value as unknown[]).every((issue) => typeof issue === 'object' && issue !== null && Array.isArray((issue as Issue).path) && typeof (issue as Issue).message === 'string');

/**
 * typescript-sdk#2284 (server 2.4.0): a request whose params fail the SDK's own schema is answered
 * -32603 Internal error with the Zod issues as the message. JSON-RPC 2.0 section 5.1 names that
 * -32602 Invalid params; a genuine internal error (any other message) is left as it is.
 */
export function remapInvalidParams(text: string): string {
  // The common case costs one substring search.
  if (!text.includes('-32603')) return text;
  try {
    const message = JSON.parse(text) as { error?: { code?: unknown; message?: unknown } };
    if (message.error?.code !== -32603 || typeof message.error.message !== 'string') return text;
    const issues: unknown = JSON.parse(message.error.message);
    if (!isIssueList(issues)) return text;
    const detail = issues.map((issue) => `${issue.path.join('.') || '(params)'}: ${issue.message}`).join('; ');
    return JSON.stringify({ ...message, error: { code: -32602, message: `Invalid params: ${detail}` } });
  } catch {
    return text;
  }
}
