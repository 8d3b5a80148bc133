/**
 * Reading a run journal back: the records in order, with a torn tail (the last line cut by a
 * crash) dropped, and the records folded into the latest state of every node for resume.
 *
 * What counts as torn: bytes after the last `\n`, plus the last complete line if it does not
 * parse (a power loss can leave zeroed blocks). An unreadable line with valid records after
 * it is corruption, not a torn write, and is an error.
 */
import { readSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { DeflowError } from '../../common/index.js';
import { type JournalRecord, parseJournalLine, type RecordOf } from './journal-records.js';
import { type JournalSnapshot, readJournalSnapshot } from './journal-snapshot.js';
import type { NodeState, RunState } from './replayed-state.js';

export interface JournalReadResult {
  readonly records: JournalRecord[];
  /** The file ended in a torn or unreadable last line, which was ignored. */
  readonly tornTail: boolean;
  /** Bytes up to the end of the last valid record (the file size when nothing was torn). */
  readonly validBytes: number;
  /** Lines up to the end of the last valid record. */
  readonly validLines: number;
}

const CHUNK = 1 << 20;
const NEWLINE = 0x0a;

/**
 * Reads a journal line by line, in 1 MiB chunks.
 * @throws DeflowError `E_JOURNAL_MISSING`, `E_JOURNAL_CORRUPT` (an unreadable line that is not
 * the last), `E_JOURNAL_VERSION`.
 */
export async function readJournal(path: string): Promise<JournalReadResult> {
  const records: JournalRecord[] = [];
  const scan = await scanJournal(path, (record) => records.push(record));
  return { records, ...scan };
}

/**
 * Reads a journal and folds its records into the latest state of every node as they are read
 * (see {@link replayRunState}): a resume of 10,000 items reads 40,000 records, and keeping
 * them all until the fold made most of its start-up garbage collection. When the journal has a
 * usable snapshot (`journal-snapshot.ts`), the fold starts from it and only the records after it
 * are read.
 * @throws DeflowError as {@link readJournal}.
 */
export async function readRunState(path: string): Promise<RunState & Omit<JournalReadResult, 'records'>> {
  const snapshot = readJournalSnapshot(path);
  const fold = snapshot === undefined ? new RunStateFold() : RunStateFold.from(snapshot);
  const scan = await scanJournal(path, (record) => fold.add(record), snapshot);
  return { ...fold.state(), ...scan };
}

/**
 * Calls `visit` with each record in order, from `from` (a line boundary: the end of what a
 * snapshot covers) or the start; says whether the tail was torn.
 */
async function scanJournal(
  path: string,
  visit: (record: JournalRecord) => void,
  from: { readonly bytes: number; readonly lines: number } = { bytes: 0, lines: 0 },
): Promise<Omit<JournalReadResult, 'records'>> {
  const handle = await open(path, 'r').catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') throw new DeflowError('E_JOURNAL_MISSING', `${path}: no journal here`, { details: { path } });
    throw error;
  });
  let bad: { line: number; start: number } | undefined;
  let line = from.lines;
  let consumed = from.bytes; // file offset of `carry[0]`
  let carry = Buffer.alloc(0);
  try {
    for (;;) {
      const chunk = Buffer.allocUnsafe(CHUNK);
      const { bytesRead } = await handle.read(chunk, 0, CHUNK, consumed + carry.length);
      if (bytesRead === 0) break;
      const buf = carry.length === 0 ? chunk.subarray(0, bytesRead) : Buffer.concat([carry, chunk.subarray(0, bytesRead)]);
      const end = buf.lastIndexOf(NEWLINE) + 1;
      // Decoding whole lines at once is safe: a `\n` byte never sits inside a UTF-8 sequence.
      const text = buf.toString('utf8', 0, end);
      let start = 0;
      for (let nl = text.indexOf('\n'); nl !== -1; nl = text.indexOf('\n', start)) {
        line++;
        const record = parseJournalLine(text.slice(start, nl), path, line);
        if (bad !== undefined) throw corruptError(path, bad.line);
        if (record === undefined) bad = { line, start: consumed + Buffer.byteLength(text.slice(0, start)) };
        else visit(record);
        start = nl + 1;
      }
      consumed += end;
      carry = Buffer.from(buf.subarray(end));
    }
  } finally {
    await handle.close();
  }
  if (bad !== undefined) return { tornTail: true, validBytes: bad.start, validLines: bad.line - 1 };
  return { tornTail: carry.length > 0, validBytes: consumed, validLines: line };
}

/**
 * The offset a reopened journal must be cut back to, found by reading only its end: the end
 * of the last complete line, or that line's start when it does not parse.
 */
export function findValidEnd(fd: number, size: number, where: string): number {
  const lastNl = findLastNewline(fd, size);
  if (lastNl === -1) return 0;
  const lineStart = findLastNewline(fd, lastNl) + 1;
  const bytes = Buffer.allocUnsafe(lastNl - lineStart);
  readExactly(fd, bytes, lineStart);
  return parseJournalLine(bytes.toString('utf8'), where, null) === undefined ? lineStart : lastNl + 1;
}

/** Offset of the last `\n` before `end`, or -1. */
function findLastNewline(fd: number, end: number): number {
  const window = Buffer.allocUnsafe(64 * 1024);
  for (let stop = end; stop > 0; ) {
    const from = Math.max(0, stop - window.length);
    const view = window.subarray(0, stop - from);
    readExactly(fd, view, from);
    const at = view.lastIndexOf(NEWLINE);
    if (at !== -1) return from + at;
    stop = from;
  }
  return -1;
}

function readExactly(fd: number, into: Buffer, position: number): void {
  for (let done = 0; done < into.length; ) {
    const n = readSync(fd, into, done, into.length - done, position + done);
    if (n === 0) throw new Error(`unexpected end of file at ${position + done}`);
    done += n;
  }
}

function corruptError(path: string, line: number): DeflowError {
  return new DeflowError(
    'E_JOURNAL_CORRUPT',
    `${path}:${line}: expected a journal record, found an unreadable line followed by valid records; ` +
      'the journal was modified outside deflow',
    { details: { path, line } },
  );
}

/** Why an intent with no later outcome is unknown. */
export const UNKNOWN_AFTER_INTENT =
  'intent journalled but no request_id: the submission may or may not have reached the service';

type MutableNode = { -readonly [K in keyof NodeState]: NodeState[K] };

/**
 * Folds records into the latest state per node: the last record wins, and an `intent` with no
 * later `submitted`/`done`/`failed` becomes `unknown`. On resume: skip `done`/`cached`/`skipped`,
 * poll `submitted`, report `unknown` (resubmit only when asked).
 */
export function replayRunState(records: readonly JournalRecord[]): RunState {
  const fold = new RunStateFold();
  for (const record of records) fold.add(record);
  return fold.state();
}

/** {@link replayRunState} one record at a time. */
class RunStateFold {
  private run: RecordOf<'run'> | null = null;
  private end: RecordOf<'end'> | null = null;
  private readonly nodes = new Map<string, MutableNode>();

  /** A fold that continues from a snapshot of the journal's first records (whose nodes it takes over). */
  static from(snapshot: JournalSnapshot): RunStateFold {
    const fold = new RunStateFold();
    fold.run = snapshot.run;
    fold.end = snapshot.end;
    for (const node of snapshot.nodes) fold.nodes.set(node.node, node);
    return fold;
  }

  add(record: JournalRecord): void {
    if (record.t === 'run') {
      this.run ??= record;
      return;
    }
    if (record.t === 'end') {
      this.end = record;
      return;
    }
    this.end = null;
    let node = this.nodes.get(record.node);
    if (node === undefined) {
      node = { node: record.node, phase: 'unknown', step: null, index: null, attempt: 0, requestId: null, submittedAt: null, cacheKey: null, status: null, progress: null, reason: null, paid: null, lost: false, adopted: false, last: record };
      this.nodes.set(record.node, node);
    }
    applyRecord(node, record);
  }

  state(): RunState {
    return { run: this.run, end: this.end, nodes: this.nodes };
  }
}

function applyRecord(node: MutableNode, record: Exclude<JournalRecord, { t: 'run' | 'end' }>): void {
  switch (record.t) {
    case 'status':
      if (node.phase !== 'submitted') return; // a late poll answer never reopens a settled node
      node.status = record.status;
      node.progress = record.progress;
      return;
    case 'intent':
      node.phase = 'unknown';
      node.step = record.step;
      node.index = record.index;
      node.attempt = record.attempt;
      node.cacheKey = record.cache_key;
      node.requestId = null;
      node.submittedAt = null;
      node.status = null;
      node.progress = null;
      node.paid = null;
      node.lost = false;
      node.adopted = false;
      node.reason = UNKNOWN_AFTER_INTENT;
      break;
    case 'submitted':
      node.phase = 'submitted';
      node.attempt = record.attempt;
      node.requestId = record.request_id;
      node.submittedAt = record.ts;
      node.adopted = record.adopted === true;
      node.reason = null;
      break;
    case 'done':
      node.phase = 'done';
      node.requestId = record.request_id ?? node.requestId;
      // The done record holds what was paid (`cost`); the paid record is not needed any more.
      node.paid = null;
      node.reason = null;
      break;
    case 'paid':
      node.phase = 'paid';
      node.requestId = record.request_id;
      node.paid = record;
      node.lost = false;
      node.reason = null;
      break;
    case 'unsaved':
      node.phase = 'paid';
      node.requestId = record.request_id;
      node.lost = record.error.code === 'E_RESULT_LOST';
      node.reason = `${record.error.code}: ${record.error.message}`;
      break;
    case 'timed-out':
      if (node.phase === 'paid') return; // paid stays paid
      node.phase = 'timed-out';
      node.requestId = record.request_id;
      node.reason = `${record.error.code}: ${record.error.message}`;
      break;
    case 'failed':
      // A paid job stays paid: a failure recorded after payment (an older deflow) is not a reason to pay again.
      if (node.phase === 'paid') {
        node.reason = `${record.error.code}: ${record.error.message}`;
        return;
      }
      node.phase = 'failed';
      node.reason = null;
      break;
    case 'cached':
      node.phase = 'cached';
      node.cacheKey = record.cache_key;
      node.reason = null;
      break;
    case 'skipped':
    case 'unknown':
      if (node.phase === 'paid') return; // paid stays paid
      node.phase = record.t;
      node.reason = record.reason;
      break;
    case 'deferred':
      node.phase = 'deferred';
      node.reason = `the daily limit of ${record.pool} is used up${record.reset_at === null ? '' : ` until ${new Date(record.reset_at).toISOString()}`}`;
      break;
  }
  node.last = record;
}
