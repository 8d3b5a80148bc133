import { createWriteStream, mkdirSync, type WriteStream } from 'node:fs';
import { open } from 'node:fs/promises';
import { dirname } from 'node:path';
import { createInterface } from 'node:readline';
import type { RunEvent } from '../../engine/index.js';
import type { EventRenderer } from './event-renderer.js';
import { NDJSON_VERSION_LINE, toSnakeCaseKeys } from './ndjson-renderer.js';

/** The event log of a run in its state folder: the `--json` stream, every session appended. */
export const EVENT_LOG_NAME = 'events.ndjson';

/** Events serialized per turn of the event loop when they come in a burst. */
const BATCH = 1000;

/**
 * Appends every event, as `--json` prints it (schemas/events.schema.json), to the run's event
 * log: the timeline `deflow report --html` draws. A session starts with the version line. The
 * log is a trace, not a record: it is not fsynced (the journal is what resumes a run), and a
 * write error drops it without stopping the run (`finish` reports it).
 *
 * Events are queued and written a batch per turn of the event loop, in order: a resume logs
 * every item done before (10,000 lines), and serializing them all at once would hold the
 * resumed jobs' first requests back by as long. Events are immutable snapshots, so writing
 * one a few milliseconds later writes the same line.
 */
export class EventLogRenderer implements EventRenderer {
  private readonly stream: WriteStream;
  private error: Error | undefined;
  private readonly queue: unknown[] = [];
  private scheduled = false;

  /** Opens `path` for appending (its folder is created). */
  constructor(path: string) {
    mkdirSync(dirname(path), { recursive: true });
    const stream = createWriteStream(path, { flags: 'a' });
    this.stream = stream;
    stream.on('error', (error) => {
      this.error ??= error;
    });
    this.enqueue(NDJSON_VERSION_LINE);
  }

  handle(event: RunEvent): void {
    if (this.error === undefined) this.enqueue(event);
  }

  async finish(): Promise<void> {
    this.flush(Number.POSITIVE_INFINITY);
    await new Promise<void>((resolve) => this.stream.end(resolve));
    if (this.error !== undefined) throw this.error;
  }

  private enqueue(value: unknown): void {
    this.queue.push(value);
    this.schedule();
  }

  private schedule(): void {
    if (this.scheduled || this.queue.length === 0) return;
    this.scheduled = true;
    setImmediate(this.drain);
  }

  private readonly drain = (): void => {
    this.scheduled = false;
    this.flush(BATCH);
    this.schedule();
  };

  /** Writes up to `max` queued events as one chunk. */
  private flush(max: number): void {
    const count = Math.min(max, this.queue.length);
    if (count === 0 || this.error !== undefined) {
      if (this.error !== undefined) this.queue.length = 0;
      return;
    }
    let text = '';
    for (let i = 0; i < count; i++) {
      text += `${JSON.stringify(toSnakeCaseKeys(this.queue[i]))}\n`;
    }
    this.queue.splice(0, count);
    this.stream.write(text);
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
