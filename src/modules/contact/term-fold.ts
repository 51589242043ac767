// How blocked terms and the text they are looked for in are compared (D20), for screening and for the
// setting that lists the terms.

/**
 * Text as terms are compared: compatibility forms and accents folded (NFKD, combining marks dropped),
 * characters that show nothing removed (a zero-width space inside a word), and lower case. So "Casinó",
 * "CASINO" and "ca\u200bsino" all read "casino"; in Spanish, "año" reads "ano", which a term list had
 * better not hold alone.
 */
export function foldTerm(text: string): string {
  return text
    .normalize('NFKD')
    .replace(/[\p{M}\p{Default_Ignorable_Code_Point}]/gu, '')
    .toLowerCase();
}
