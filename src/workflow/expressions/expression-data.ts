import { data } from '@actions/expressions';

/** Converts a plain value to the evaluator's data (objects become case-insensitive dictionaries). */
export function toExpressionData(value: unknown): data.ExpressionData {
  if (value === null || value === undefined) return new data.Null();
  if (typeof value === 'string') return new data.StringData(value);
  if (typeof value === 'number') return new data.NumberData(value);
  if (typeof value === 'boolean') return new data.BooleanData(value);
  if (typeof value === 'bigint') return new data.NumberData(Number(value));
  if (Array.isArray(value)) return new data.Array(...value.map(toExpressionData));
  if (value instanceof Date) return new data.StringData(value.toISOString());
  if (typeof value === 'object') {
    const dictionary = new data.Dictionary();
    for (const [key, entry] of Object.entries(value)) dictionary.add(key, toExpressionData(entry));
    return dictionary;
  }
  return new data.StringData(String(value));
}

/** Converts evaluator data back to a plain value. */
export function fromExpressionData(value: data.ExpressionData | undefined): unknown {
  if (value === undefined) return null;
  switch (value.kind) {
    case data.Kind.Null:
      return null;
    case data.Kind.String:
      return value.value;
    case data.Kind.Number:
      return value.value;
    case data.Kind.Boolean:
      return value.value;
    case data.Kind.Array:
      return value.values().map(fromExpressionData);
    default: {
      const out: Record<string, unknown> = {};
      for (const pair of value.pairs()) out[pair.key] = fromExpressionData(pair.value);
      return out;
    }
  }
}
