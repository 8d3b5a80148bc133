// Characters XML 1.0 forbids even as character references (C0 controls other than TAB, LF, CR;
// lone surrogates; U+FFFE, U+FFFF). They are replaced by U+FFFD so the file stays parseable.
const INVALID_XML_CHARS = /[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu;

/** Escapes text content: `&`, `<`, `>`, and characters XML cannot carry. */
export function escapeXmlText(text: string): string {
  return text
    .replace(INVALID_XML_CHARS, '\uFFFD')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;');
}

/**
 * Escapes an attribute value (for double quotes). TAB, LF and CR become character references
 * because attribute-value normalization would otherwise turn them into spaces.
 */
export function escapeXmlAttribute(text: string): string {
  return escapeXmlText(text)
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&apos;')
    .replace(/\t/g, '&#9;')
    .replace(/\n/g, '&#10;')
    .replace(/\r/g, '&#13;');
}
