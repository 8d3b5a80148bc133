import { createWriteStream, mkdirSync, type WriteStream } from 'node:fs';
import { open } from 'node:fs/promises';
import { dirname } from 'node:path';
import { createInterface } from 'node:readline';
import type { RunEvent } from '../engine/index.js';
import type { EventRenderer } from './event-renderer.js';
import { NDJSON_VERSION_LINE, toSnakeCaseKeys } from './ndjson-renderer.js';

/** The event log of a run in its state folder: the `--json` stream, every session appended. */
export const EVENT_LOG_NAME = 'events.ndjson';

/**
 * Appends every event, as `--json` prints it (schemas/events.schema.json), to the run's event
 * log: the timeline `deflow report --html` draws. A session starts with the version line. The
 * log is a trace, not a record: it is not fsynced (the journal is what resumes a run), and a
 * write error drops it without stopping the run (`finish` reports it).
 */
export class EventLogRenderer implements EventRenderer {
  private readonly stream: WriteStream;
  private error: Error | undefined;

  /** Opens `path` for appending (its folder is created). */
  constructor(path: string) {
    mkdirSync(dirname(path), { recursive: true });
    const stream = createWriteStream(path, { flags: 'a' });
    this.stream = stream;
    stream.on('error', (error) => {
      this.error ??= error;
    });
    this.write(NDJSON_VERSION_LINE);
  }

  handle(event: RunEvent): void {
    if (this.error === undefined) this.write(toSnakeCaseKeys(event));
  }

  async finish(): Promise<void> {
    await new Promise<void>((resolve) => this.stream.end(resolve));
    if (this.error !== undefined) throw this.error;
  }

  private write(value: unknown): void {
    // Events come in bursts (a resume logs every item done before): one write per tick, not per line.
    if (!this.stream.writableCorked) {
      this.stream.cork();
      process.nextTick(() => this.stream.uncork());
    }
    this.stream.write(`${JSON.stringify(value)}\n`);
  }
}

/** A line of the event log: a snake_case event object (see schemas/events.schema.json). */
export type LoggedEvent = Readonly<Record<string, unknown>> & { readonly type: string };

/**
 * Reads an event log line by line. Lines that are not JSON objects with a `type` (a line torn
 * by a crash) are skipped and counted.
 */
export async function readEventLog(path: string): Promise<{ events: LoggedEvent[]; skipped: number }> {
  const handle = await open(path, 'r');
  const events: LoggedEvent[] = [];
  let skipped = 0;
  try {
    const lines = createInterface({ input: handle.createReadStream({ encoding: 'utf8' }), crlfDelay: Number.POSITIVE_INFINITY });
    for await (const line of lines) {
      if (line.trim() === '') continue;
      const event = parseLine(line);
      if (event === undefined) skipped++;
      else events.push(event);
    }
  } finally {
    await handle.close();
  }
  return { events, skipped };
}

function parseLine(line: string): LoggedEvent | undefined {
  try {
    const value: unknown = JSON.parse(line);
    if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
    return typeof (value as { type?: unknown }).type === 'string' ? (value as LoggedEvent) : undefined;
  } catch {
    return undefined;
  }
}
