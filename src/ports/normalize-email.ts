// The form in which stores compare e-mail addresses: one person's inquiries are found however the
// address was typed (docs/deploy.md, "Personal data"), and never another person's.
import { domainToASCII } from 'node:url';

/**
 * The address as it is compared, as mail routes it: Unicode NFKC first (fullwidth `ｅｘａｍｐｌｅ．ｃｏｍ`
 * and `＠` become ASCII); then the domain through IDNA's mapping (UTS #46, as WHATWG URL applies it:
 * nontransitional, so `ß` and final sigma `ς` stay what they are) to its ASCII form (`Bücher.de` is
 * `xn--bcher-kva.de`), before anything lower-cases it, since DNS is asked for that form; and the local
 * part lower-cased one code point at a time, without the context rule that turns a word's last `Σ` into
 * `ς`: `ΣΑΣ` and `σας` are two mailboxes, and `g@ΣΑΣ-x.gr` is delivered to σασ-x.gr.
 * The local part is lower-cased at all, although RFC 5321 section 2.4 lets a server tell `Ana` from
 * `ana`: on such a server two mailboxes compare as one, and a request of access or erasure had rather
 * find a row too many than leave a person's rows behind.
 * A domain IDNA refuses is kept as NFKC left it, lower-cased the same way, so that it matches itself alone.
 * docs/storage.md gives the table of the letters whose case differs by language or context.
 *
 * Stored beside each inquiry: a change to this rule needs a migration that computes the column again.
 */
export function normalizeEmail(address: string): string {
  const typed = address.normalize('NFKC').trim();
  const at = typed.lastIndexOf('@');
  if (at < 0) return lowerCase(typed);
  const domain = typed.slice(at + 1);
  return `${lowerCase(typed.slice(0, at))}@${domainToASCII(domain) || lowerCase(domain)}`;
}

/** Unicode's lower case of each code point alone: String.prototype.toLowerCase without Final_Sigma, its one context rule. */
function lowerCase(text: string): string {
  let lower = '';
  for (const codePoint of text) lower += codePoint.toLowerCase();
  return lower;
}
