/**
 * The one redactor. Everything deflow prints, logs, throws or writes to a report passes
 * through it at the boundary: `Authorization` values, the API key (raw and URL-encoded)
 * wherever it appears, `webhook_secret` values, and the query of signed URLs.
 */
export type Redactor = (text: string) => string;

const MASK = '[redacted]';
/** Query parameters that make a URL a bearer credential (S3/GCS pre-signed URLs, tokens). */
const SIGNED_QUERY = /(?:^|[&;])(?:x-amz-[a-z-]+|x-goog-[a-z-]+|signature|sig|token|access_token|credential|key|expires|se|sp|sv)=/i;

/** A redactor that also masks each of `secrets` (values shorter than 4 characters are ignored). */
export function createRedactor(secrets: readonly (string | undefined | null)[] = []): Redactor {
  const literals = new Set<string>();
  for (const secret of secrets) {
    if (typeof secret !== 'string' || secret.length < 4) continue;
    literals.add(secret);
    literals.add(encodeURIComponent(secret));
    literals.add(JSON.stringify(secret).slice(1, -1));
  }
  // Longest first, so a secret's encoded form is not half-replaced by a shorter literal.
  const ordered = [...literals].sort((a, b) => b.length - a.length);
  return (text: string): string => {
    let out = text;
    for (const literal of ordered) out = out.split(literal).join(MASK);
    return redactPatterns(out);
  };
}

/** Masks what needs no known secret: bearer tokens, webhook secrets, signed URL queries. */
export function redactPatterns(text: string): string {
  return text
    .replace(/(\bBearer\s+)[^\s"',;]+/gi, `$1${MASK}`)
    .replace(/("?webhook_secret"?\s*[:=]\s*"?)[^"&\s,}]+/gi, `$1${MASK}`)
    .replace(/(\bhttps?:\/\/[^\s"'<>?#]+)\?([^\s"'<>#]*)/gi, (whole, base: string, query: string) =>
      SIGNED_QUERY.test(query) ? `${base}?${MASK}` : whole,
    );
}

/** A URL as it may be shown: origin and path, with any query replaced by a mask. */
export function redactUrl(url: string): string {
  try {
    const parsed = new URL(url);
    const query = parsed.search ? `?${MASK}` : '';
    if (parsed.origin === 'null') {
      // file:, data: and other schemes have no origin (the URL API says "null"): keep the
      // scheme and host as written, never a user or password.
      parsed.username = '';
      parsed.password = '';
      parsed.search = '';
      parsed.hash = '';
      return `${parsed.href}${query}`;
    }
    return `${parsed.origin}${parsed.pathname}${query}`;
  } catch {
    return redactPatterns(url.split('?')[0] ?? '');
  }
}
