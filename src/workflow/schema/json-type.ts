/** The JSON type name of a value, as schema messages print it ("got number"). */
export function jsonType(value: unknown): string {
  if (value === null || value === undefined) return 'null';
  if (Array.isArray(value)) return 'array';
  if (value instanceof Uint8Array) return 'binary data';
  if (value instanceof Date) return 'date';
  return typeof value === 'object' ? 'object' : typeof value;
}

/** A short rendering of a value for messages: strings quoted, long values cut. */
export function showValue(value: unknown): string {
  let text: string;
  try {
    text = typeof value === 'string' ? JSON.stringify(value) : (JSON.stringify(value) ?? String(value));
  } catch {
    text = String(value);
  }
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}

/** `a, b or c`. */
export function listOr(items: readonly string[]): string {
  if (items.length <= 1) return items.join('');
  return `${items.slice(0, -1).join(', ')} or ${items[items.length - 1]}`;
}
