// The form in which stores compare e-mail addresses: one person's inquiries are found however the
// address was typed (docs/deploy.md, "Personal data").
import { domainToASCII } from 'node:url';

/**
 * The address as it is compared: Unicode NFKC first (fullwidth `ｅｘａｍｐｌｅ．ｃｏｍ` and `＠` become
 * ASCII), then the local part and the domain in lower case, the domain in its ASCII IDNA form
 * (`Bücher.de` is `xn--bcher-kva.de`), as mail delivers to it. The local part is lower-cased too,
 * although RFC 5321 section 2.4 lets a server tell `Ana` from `ana`: on such a server two mailboxes
 * compare as one, and a request of access or erasure had rather find a row too many than leave a
 * person's rows behind.
 * A domain IDNA refuses is kept as NFKC left it, so that it still matches itself alone.
 *
 * Stored beside each inquiry: a change to this rule needs a migration that computes the column again.
 */
export function normalizeEmail(address: string): string {
  const folded = address.normalize('NFKC').trim().toLowerCase();
  const at = folded.lastIndexOf('@');
  if (at < 0) return folded;
  const domain = folded.slice(at + 1);
  return `${folded.slice(0, at)}@${domainToASCII(domain) || domain}`;
}
