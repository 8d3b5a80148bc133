import type { RunEvent } from '../../engine/index.js';
import type { EventRenderer } from './event-renderer.js';

/**
 * The first line of `--json` output (schemas/events.schema.json). `format_version` is the major
 * version (a renamed or removed field bumps it); `format` is `major.minor` after Terraform's
 * machine-readable UI, the minor counting added events and fields (1.1: `item-queued`,
 * `item-downloading`, `rate-wait`; 1.2: `item-deferred`, skip kinds, deferred pools, rates in
 * `rate-wait`, the clock's time scale in `run-started`).
 */
export const NDJSON_VERSION_LINE = { type: 'version', format: '1.2', format_version: 1, tool: 'deflow' } as const;

/**
 * `--json`: one JSON object per line on `stream` (stdout), the version line first. Keys are
 * converted to snake_case (`requestId` → `request_id`), like `run.json`; `type` values keep the
 * engine's kebab-case names (`item-done`). Human text never goes to this stream.
 */
export class NdjsonRenderer implements EventRenderer {
  constructor(private readonly stream: NodeJS.WritableStream) {
    this.writeLine(NDJSON_VERSION_LINE);
  }

  handle(event: RunEvent): void {
    this.writeLine(toSnakeCaseKeys(event));
  }

  async finish(): Promise<void> {}

  private writeLine(value: unknown): void {
    this.stream.write(`${JSON.stringify(value)}\n`);
  }
}

/** Keys already converted: events repeat a few dozen keys (a resume logs every item done before). */
const SNAKE_KEYS = new Map<string, string>();
const SNAKE_KEYS_MAX = 10_000;

function snakeKey(key: string): string {
  let snake = SNAKE_KEYS.get(key);
  if (snake === undefined) {
    snake = key.replace(/[A-Z]/g, (upper) => `_${upper.toLowerCase()}`);
    if (SNAKE_KEYS.size < SNAKE_KEYS_MAX) SNAKE_KEYS.set(key, snake);
  }
  return snake;
}

/** A deep copy of `value` with every object key in snake_case. */
export function toSnakeCaseKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(toSnakeCaseKeys);
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const [key, inner] of Object.entries(value)) out[snakeKey(key)] = toSnakeCaseKeys(inner);
  return out;
}
