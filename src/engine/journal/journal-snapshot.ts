/**
 * A snapshot of a journal's replayed state: the latest state of every node as of a byte offset
 * of `journal.jsonl`, written beside it (`journal.snapshot.json`) when a session of the run
 * closes. A resume reads the snapshot and only the records after that offset, instead of
 * replaying every record (a 10,000-item run journals ~40,000).
 *
 * The snapshot is a cache, never the truth: it is used only when the journal still holds the
 * bytes it covers (the file is at least that long and its last covered line hashes the same),
 * and anything unexpected (missing, unreadable, another version, a journal cut shorter or
 * rewritten) makes the reader fall back to the whole journal. The journal is append-only, so a
 * prefix once covered never changes.
 *
 * Rows are positional arrays (a node's name is stored once; its records without `node`), which
 * keeps a snapshot at about half the journal's bytes and a third of its objects.
 */
import { isAscii } from 'node:buffer';
import { createHash } from 'node:crypto';
import { closeSync, fstatSync, openSync, readFileSync, readSync, rmSync } from 'node:fs';
import { writeFileAtomic } from '../../common/index.js';
import type { JournalRecord, RecordOf } from './journal-records.js';
import type { NodePhase, NodeState } from './replayed-state.js';

/** The snapshot format this code writes and reads (another version is ignored). */
export const SNAPSHOT_VERSION = 1;

/** What a snapshot restores: the replayed state of the journal's first `bytes` (`lines` lines). */
export interface JournalSnapshot {
  readonly bytes: number;
  readonly lines: number;
  readonly run: RecordOf<'run'> | null;
  readonly end: RecordOf<'end'> | null;
  readonly nodes: NodeState[];
}

/** The snapshot file of a journal: `journal.jsonl` → `journal.snapshot.json`. */
export function snapshotPath(journalPath: string): string {
  return `${journalPath.replace(/\.jsonl$/, '')}.snapshot.json`;
}

const PHASES: ReadonlySet<string> = new Set<NodePhase>(['unknown', 'submitted', 'paid', 'done', 'failed', 'skipped', 'cached', 'deferred', 'timed-out']);

/**
 * Writes the snapshot of the journal at `journalPath` whose first `bytes` (`lines` lines)
 * replay to `state`. No lock is needed: a journal only grows, so those bytes stay what they
 * were, whoever appends after them (a torn tail is never part of what was replayed).
 */
export function writeJournalSnapshot(journalPath: string, state: Omit<JournalSnapshot, 'bytes' | 'lines'>, covered: { readonly bytes: number; readonly lines: number }): void {
  const tail = coveredTail(journalPath, covered.bytes);
  if (tail === undefined) return;
  const file = {
    v: SNAPSHOT_VERSION,
    journal_bytes: covered.bytes,
    journal_lines: covered.lines,
    tail_bytes: tail.length,
    tail_sha256: sha256(tail),
    run: state.run,
    end: state.end,
    nodes: state.nodes.map(encodeNode),
  };
  writeFileAtomic(snapshotPath(journalPath), JSON.stringify(file));
}

/** Removes a journal's snapshot (when its journal starts over). */
export function removeJournalSnapshot(journalPath: string): void {
  rmSync(snapshotPath(journalPath), { force: true });
}

/**
 * The snapshot of the journal at `journalPath` when there is a usable one: same version, and
 * the journal still holds the bytes it covers. Otherwise undefined (replay the whole journal).
 */
export function readJournalSnapshot(journalPath: string): JournalSnapshot | undefined {
  let file: unknown;
  try {
    const bytes = readFileSync(snapshotPath(journalPath));
    // Mostly ASCII (item keys may not be): decoded as such it skips UTF-8 decoding's checks.
    file = JSON.parse(isAscii(bytes) ? bytes.toString('latin1') : bytes.toString('utf8'));
  } catch {
    return undefined;
  }
  if (!isSnapshotFile(file)) return undefined;
  const tail = coveredTail(journalPath, file.journal_bytes);
  if (tail === undefined || tail.length !== file.tail_bytes || sha256(tail) !== file.tail_sha256) return undefined;
  const nodes: NodeState[] = [];
  for (const row of file.nodes) {
    const node = decodeNode(row);
    if (node === undefined) return undefined;
    nodes.push(node);
  }
  return { bytes: file.journal_bytes, lines: file.journal_lines, run: file.run, end: file.end, nodes };
}

interface SnapshotFile {
  readonly v: number;
  readonly journal_bytes: number;
  readonly journal_lines: number;
  readonly tail_bytes: number;
  readonly tail_sha256: string;
  readonly run: RecordOf<'run'> | null;
  readonly end: RecordOf<'end'> | null;
  readonly nodes: unknown[];
}

function isSnapshotFile(value: unknown): value is SnapshotFile {
  if (typeof value !== 'object' || value === null) return false;
  const file = value as Partial<Record<keyof SnapshotFile, unknown>>;
  return (
    file.v === SNAPSHOT_VERSION &&
    Number.isSafeInteger(file.journal_bytes) &&
    (file.journal_bytes as number) > 0 &&
    Number.isSafeInteger(file.journal_lines) &&
    typeof file.tail_sha256 === 'string' &&
    Number.isSafeInteger(file.tail_bytes) &&
    isRecordOrNull(file.run, 'run') &&
    isRecordOrNull(file.end, 'end') &&
    Array.isArray(file.nodes)
  );
}

function isRecordOrNull(value: unknown, type: string): boolean {
  return value === null || (typeof value === 'object' && (value as { t?: unknown }).t === type);
}

/**
 * The last line of the journal's first `bytes` (with its `\n`), or undefined when the journal
 * is missing, shorter, or does not end a line there.
 */
function coveredTail(journalPath: string, bytes: number): Buffer | undefined {
  let fd: number;
  try {
    fd = openSync(journalPath, 'r');
  } catch {
    return undefined;
  }
  try {
    if (bytes <= 0 || fstatSync(fd).size < bytes) return undefined;
    // Lines are short (a result's JSON at most); read back until the line before starts.
    for (let window = 4096; ; window *= 4) {
      const from = Math.max(0, bytes - window);
      const buffer = Buffer.allocUnsafe(bytes - from);
      if (readSync(fd, buffer, 0, buffer.length, from) !== buffer.length) return undefined;
      if (buffer[buffer.length - 1] !== 0x0a) return undefined;
      const before = buffer.lastIndexOf(0x0a, buffer.length - 2);
      if (before !== -1) return buffer.subarray(before + 1);
      if (from === 0) return buffer;
    }
  } finally {
    closeSync(fd);
  }
}

function sha256(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/** A node as a row: its fields in a fixed order, its records without the `node` they repeat. */
type Row = [
  node: string,
  phase: NodePhase,
  step: string | null,
  index: number | null,
  attempt: number,
  requestId: string | null,
  submittedAt: number | null,
  cacheKey: string | null,
  status: string | null,
  progress: number | null,
  reason: string | null,
  lost: boolean,
  paid: Omit<RecordOf<'paid'>, 'node'> | null,
  last: Omit<JournalRecord, 'node'>,
  /** Absent in snapshots written before adoption existed. */
  adopted?: boolean,
];

function encodeNode(node: NodeState): Row {
  return [
    node.node,
    node.phase,
    node.step,
    node.index,
    node.attempt,
    node.requestId,
    node.submittedAt,
    node.cacheKey,
    node.status,
    node.progress,
    node.reason,
    node.lost,
    node.paid === null ? null : withoutNode(node.paid),
    withoutNode(node.last),
    ...(node.adopted ? [true] : []),
  ] as Row;
}

function withoutNode<T extends object>(record: T): Omit<T, 'node'> {
  const { node: _node, ...rest } = record as T & { node?: unknown };
  return rest;
}

const isStringOrNull = (value: unknown): value is string | null => value === null || typeof value === 'string';
const isNumberOrNull = (value: unknown): value is number | null => value === null || typeof value === 'number';
const isRecord = (value: unknown): value is Record<string, unknown> & { t: string; ts: number } =>
  typeof value === 'object' && value !== null && typeof (value as { t?: unknown }).t === 'string' && typeof (value as { ts?: unknown }).ts === 'number';

function decodeNode(row: unknown): NodeState | undefined {
  if (!Array.isArray(row) || (row.length !== 14 && row.length !== 15)) return undefined;
  // By index: array destructuring goes through the iterator protocol, 10,000 times.
  const node: unknown = row[0], phase: unknown = row[1], step: unknown = row[2], index: unknown = row[3], attempt: unknown = row[4];
  const requestId: unknown = row[5], submittedAt: unknown = row[6], cacheKey: unknown = row[7], status: unknown = row[8], progress: unknown = row[9];
  const reason: unknown = row[10], lost: unknown = row[11], paid: unknown = row[12], last: unknown = row[13];
  if (typeof node !== 'string' || typeof phase !== 'string' || !PHASES.has(phase)) return undefined;
  if (!isStringOrNull(step) || !isNumberOrNull(index) || typeof attempt !== 'number' || !isStringOrNull(requestId) || !isNumberOrNull(submittedAt)) return undefined;
  if (!isStringOrNull(cacheKey) || !isStringOrNull(status) || !isNumberOrNull(progress) || !isStringOrNull(reason) || typeof lost !== 'boolean') return undefined;
  if (!(paid === null || (isRecord(paid) && paid.t === 'paid')) || !isRecord(last)) return undefined;
  // The parsed objects are this reader's own: the records get their `node` back in place.
  if (paid !== null) (paid as Record<string, unknown>)['node'] = node;
  (last as Record<string, unknown>)['node'] = node;
  return {
    node,
    phase: phase as NodePhase,
    step,
    index,
    attempt,
    requestId,
    submittedAt,
    cacheKey,
    status,
    progress,
    reason,
    lost,
    adopted: row[14] === true,
    paid: paid as unknown as RecordOf<'paid'> | null,
    last: last as unknown as JournalRecord,
  };
}
