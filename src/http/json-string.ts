// JSON strings for the lines built as templates on hot paths (the access lines, request-log.ts).

/** A JSON string (RFC 8259 section 7): copied as it is unless it holds a character JSON.stringify would escape. */
export function jsonString(value: string): string {
  for (let i = 0; i < value.length; i++) {
    const c = value.charCodeAt(i);
    // Controls, quotation mark, reverse solidus, and surrogates (JSON.stringify writes a lone one as a \u escape).
    if (c < 0x20 || c === 0x22 || c === 0x5c || (c >= 0xd800 && c <= 0xdfff)) return JSON.stringify(value);
  }
  return `"${value}"`;
}
