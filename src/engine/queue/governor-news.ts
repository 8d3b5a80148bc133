/**
 * What the processes sharing an account tell each other, and the governor events this
 * process emits from it. An answer that teaches a bucket something (its limits, a 429's
 * window, a used-up day) is published; the other processes emit it as their own event, so a
 * coordinator reports the 429s its workers met and each sizes its concurrency from limits
 * any of them learned. A daily reset or a window refusal is announced once per time.
 */
import type { EventEmitter } from 'node:events';
import type { BucketNews, GovernorBucket, GovernorEvents, Refusal } from '../../client/index.js';
import { splitBucketKey } from '../../client/index.js';

/** What a process publishes after an answer taught a bucket something, or freed what others wait for. */
export interface GovernorMessage {
  readonly from: string;
  readonly bucket: string;
  readonly learned?: Learned;
  readonly throttledUntil?: number;
  readonly dailyResetAt?: number;
}

interface Learned {
  readonly limit: number;
  readonly windowSeconds: number;
  readonly dailyLimit?: number;
}

/** The messages of a published text (one, or a batch as an array); none when it is not ours. */
export function parseMessages(text: string): GovernorMessage[] {
  try {
    const parsed = JSON.parse(text) as GovernorMessage | GovernorMessage[];
    return Array.isArray(parsed) ? parsed : [parsed];
  } catch {
    return [];
  }
}

/** The limits a bucket knows, as published. */
export function learnedOf(bucket: GovernorBucket): Learned {
  return { limit: bucket.limit, windowSeconds: bucket.windowMs / 1000, ...(bucket.daily ? { dailyLimit: bucket.daily.limit } : {}) };
}

/** The message to publish for what a change taught `bucket`, or null when it taught nothing. */
export function newsMessage(from: string, key: string, bucket: GovernorBucket, news: Partial<BucketNews>): GovernorMessage | null {
  if (!news.learned && news.throttledUntil === undefined && news.dailyResetAt === undefined) return null;
  return {
    from,
    bucket: key,
    ...(news.learned ? { learned: learnedOf(bucket) } : {}),
    ...(news.throttledUntil === undefined ? {} : { throttledUntil: news.throttledUntil }),
    ...(news.dailyResetAt === undefined ? {} : { dailyResetAt: news.dailyResetAt }),
  };
}

/** Emits the governor's events, once per daily reset and per window end. */
export class GovernorAnnouncer {
  private readonly dailyAnnounced = new Map<string, number>();
  private readonly throttleAnnounced = new Map<string, number | null>();

  constructor(private readonly emitter: EventEmitter<GovernorEvents>) {}

  /** What another process published (its own messages are skipped by the caller). */
  heard(message: GovernorMessage): void {
    if (message.learned) this.learned(message.bucket, message.learned);
    if (message.throttledUntil !== undefined) this.emitter.emit('throttled', { bucket: message.bucket, ...splitBucketKey(message.bucket), until: message.throttledUntil, reason: '429' });
    if (message.dailyResetAt !== undefined) this.daily(message.bucket, message.dailyResetAt);
  }

  /** What a change of this process taught `key` (`bucket` as it is now). */
  changed(key: string, news: Partial<BucketNews>, bucket: () => GovernorBucket): void {
    if (news.learned) this.learned(key, learnedOf(bucket()));
    if (news.throttledUntil !== undefined) this.emitter.emit('throttled', { bucket: key, ...splitBucketKey(key), until: news.throttledUntil, reason: '429' });
    if (news.dailyResetAt !== undefined) this.daily(key, news.dailyResetAt);
  }

  /** A bucket refused this process a slot. */
  refused(key: string, refusal: Refusal): void {
    if (refusal.reason === 'window') {
      if (this.throttleAnnounced.get(key) === refusal.until) return;
      this.throttleAnnounced.set(key, refusal.until);
      this.emitter.emit('throttled', { bucket: key, ...splitBucketKey(key), until: refusal.until, reason: 'window' });
    } else if (refusal.reason === 'daily-exhausted' && refusal.until !== null) {
      this.daily(key, refusal.until);
    }
  }

  private learned(key: string, learned: Learned): void {
    this.emitter.emit('limitLearned', { bucket: key, ...splitBucketKey(key), limit: learned.limit, windowSeconds: learned.windowSeconds, ...(learned.dailyLimit === undefined ? {} : { dailyLimit: learned.dailyLimit }) });
  }

  private daily(key: string, resetAt: number): void {
    if (this.dailyAnnounced.get(key) === resetAt) return;
    this.dailyAnnounced.set(key, resetAt);
    this.emitter.emit('dailyExhausted', { bucket: key, ...splitBucketKey(key), resetAt });
  }
}
