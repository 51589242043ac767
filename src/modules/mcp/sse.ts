// Reading a one-answer Server-Sent Events body (the SDK's 2025-era framing) as its JSON message.

/** The data of the last SSE event: the response, after any messages the handler sent before it. */
export function lastSseMessage(stream: string): string {
  const events = stream.split(/\r?\n\r?\n/).map((event) =>
    event
      .split(/\r?\n/)
      .filter((line) => line.startsWith('data:'))
      .map((line) => line.slice(5).trimStart())
      .join('\n'),
  );
  return events.filter(Boolean).at(-1) ?? '';
}
