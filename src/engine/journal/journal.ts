/**
 * The run journal's writer: an append-only JSONL file whose `append` resolves only once the
 * record is on disk (write + fdatasync). Appends are group-committed: records appended while
 * a sync is in flight are written together and share the next sync, so 16 jobs finishing at
 * once cost one or two syncs, not 16. Records land in call order.
 *
 * Reading and replay live in `journal-replay.ts`. Resume order: `openJournal(path, { create:
 * false })` first (it takes the lock and cuts a torn tail), then `readJournal(path)`.
 */
import { channel } from 'node:diagnostics_channel';
import { closeSync, constants, fdatasync, fdatasyncSync, fstatSync, ftruncateSync, openSync } from 'node:fs';
import { dirname } from 'node:path';
import { type Clock, systemClock } from '../../common/index.js';
import { DeflowError } from '../../common/index.js';
import { fsyncDir, mkdirDurable, writeAll } from '../../common/index.js';
import { type JournalEntry, type JournalRecord, stampEntry } from './journal-records.js';
import { findValidEnd } from './journal-replay.js';
import { acquireLock, type LockFile } from './lock-file.js';

export interface JournalOptions {
  /** `true`: start a new journal (fails if the file exists). `false`: reopen one to append. */
  readonly create: boolean;
  /** Stamps each record's `ts`. @default systemClock */
  readonly clock?: Clock;
  /**
   * Take `<path>.lock` for the journal's lifetime (one writer per journal).
   * @default true
   */
  readonly lock?: boolean;
  /**
   * Test hook, called for each record once it is durable and before its `append` resolves.
   * If it throws, the journal behaves as if the process died there: that append and every
   * later one reject with the thrown error, and nothing more is written.
   */
  readonly onAfterSync?: (record: JournalRecord) => void;
  /** Flushes the file's data. Injectable to count syncs. @default fdatasync */
  readonly datasync?: (fd: number) => Promise<void>;
}

/**
 * Published (synchronously) for each record once it is durable and before its `append`
 * resolves, with `{ path, record }`. Observability for whoever subscribes: the crash harness
 * (`test/helpers/crash-after-hook.mjs`, loaded with `node --import`) SIGKILLs the real CLI
 * from here. Costs nothing without subscribers.
 */
export const JOURNAL_DURABLE_CHANNEL = 'deflow:journal:durable';
const durableChannel = channel(JOURNAL_DURABLE_CHANNEL);

export interface Journal {
  readonly path: string;
  /** Bytes of a torn tail cut off when the journal was reopened (0 when it was clean). */
  readonly repairedBytes: number;
  /**
   * Appends a record (stamped with `v` and `ts`). Resolves once it is durable; rejects with
   * `E_JOURNAL_WRITE` if the write or the sync failed, after which the journal accepts nothing.
   */
  append(entry: JournalEntry): Promise<void>;
  /** Waits for pending appends, closes the file and releases the lock. Idempotent. */
  close(): Promise<void>;
}

/**
 * Opens a run journal for appending. Creates the parent folder when needed and fsyncs the
 * directory after creating the file, so the journal's name survives a crash too.
 * @throws DeflowError `E_STATE_LOCKED`, `E_JOURNAL_EXISTS`, `E_JOURNAL_MISSING`
 */
export function openJournal(path: string, options: JournalOptions): Journal {
  if (options.create) mkdirDurable(dirname(path));
  const lock = options.lock === false ? undefined : acquireLock(`${path}.lock`);
  try {
    const { fd, repairedBytes } = options.create ? createFile(path) : reopenFile(path);
    return new JsonlJournal(path, fd, repairedBytes, options, lock);
  } catch (error) {
    lock?.release();
    throw error;
  }
}

function createFile(path: string): { fd: number; repairedBytes: number } {
  let fd: number;
  try {
    fd = openSync(path, constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | constants.O_EXCL, 0o644);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    throw new DeflowError('E_JOURNAL_EXISTS', `${path}: a journal already exists here; reopen it to resume`, { details: { path } });
  }
  fsyncDir(dirname(path));
  return { fd, repairedBytes: 0 };
}

function reopenFile(path: string): { fd: number; repairedBytes: number } {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDWR | constants.O_APPEND);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    throw new DeflowError('E_JOURNAL_MISSING', `${path}: no journal here to resume`, { details: { path } });
  }
  try {
    const { size } = fstatSync(fd);
    const validEnd = findValidEnd(fd, size, path);
    if (validEnd < size) {
      ftruncateSync(fd, validEnd);
      // Durable now (fdatasync covers the size change), or a crash could bring the torn bytes
      // back between the old records and our new ones.
      fdatasyncSync(fd);
    }
    return { fd, repairedBytes: size - validEnd };
  } catch (error) {
    closeSync(fd);
    throw error;
  }
}

interface Pending {
  readonly record: JournalRecord;
  readonly line: string;
  readonly resolve: () => void;
  readonly reject: (error: unknown) => void;
}

class JsonlJournal implements Journal {
  readonly #clock: Clock;
  readonly #datasync: (fd: number) => Promise<void>;
  readonly #onAfterSync: ((record: JournalRecord) => void) | undefined;
  readonly #lock: LockFile | undefined;
  #fd: number | null;
  #queue: Pending[] = [];
  #flushing: Promise<void> | null = null;
  #failure: unknown = null;

  constructor(
    readonly path: string,
    fd: number,
    readonly repairedBytes: number,
    options: JournalOptions,
    lock: LockFile | undefined,
  ) {
    this.#fd = fd;
    this.#clock = options.clock ?? systemClock;
    this.#datasync = options.datasync ?? datasyncFd;
    this.#onAfterSync = options.onAfterSync;
    this.#lock = lock;
  }

  append(entry: JournalEntry): Promise<void> {
    if (this.#failure !== null) return Promise.reject(this.#failure);
    if (this.#fd === null) {
      return Promise.reject(new DeflowError('E_JOURNAL_CLOSED', `${this.path}: the journal is closed`, { details: { path: this.path } }));
    }
    const record = stampEntry(entry, this.#clock.now());
    const line = `${JSON.stringify(record)}\n`;
    return new Promise((resolve, reject) => {
      this.#queue.push({ record, line, resolve, reject });
      this.#flushing ??= this.#flushLoop();
    });
  }

  async close(): Promise<void> {
    while (this.#flushing !== null) await this.#flushing;
    if (this.#fd === null) return;
    closeSync(this.#fd);
    this.#fd = null;
    this.#lock?.release();
  }

  async #flushLoop(): Promise<void> {
    // One microtask of grace: every append made in the same synchronous stretch joins the batch.
    await Promise.resolve();
    while (this.#queue.length > 0 && this.#failure === null) {
      const batch = this.#queue;
      this.#queue = [];
      try {
        writeAll(this.#fd!, Buffer.from(batch.map((p) => p.line).join('')));
        await this.#datasync(this.#fd!);
      } catch (error) {
        this.#fail(new DeflowError('E_JOURNAL_WRITE', `${this.path}: could not make a journal record durable: ${(error as Error).message}`, { cause: error, details: { path: this.path } }), batch);
        break;
      }
      this.#settle(batch);
    }
    this.#flushing = null;
  }

  #settle(batch: Pending[]): void {
    for (let i = 0; i < batch.length; i++) {
      const pending = batch[i]!;
      try {
        this.#onAfterSync?.(pending.record);
      } catch (error) {
        for (const done of batch.slice(0, i)) done.resolve();
        this.#fail(error, batch.slice(i));
        return;
      }
      if (durableChannel.hasSubscribers) durableChannel.publish({ path: this.path, record: pending.record });
    }
    for (const pending of batch) pending.resolve();
  }

  #fail(error: unknown, batch: Pending[]): void {
    this.#failure = error;
    for (const pending of [...batch, ...this.#queue]) pending.reject(error);
    this.#queue = [];
  }
}

function datasyncFd(fd: number): Promise<void> {
  return new Promise((resolve, reject) => fdatasync(fd, (error) => (error ? reject(error) : resolve())));
}
