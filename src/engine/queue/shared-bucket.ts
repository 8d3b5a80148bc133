/**
 * One rate-limit bucket kept in Redis for every process that spends the same account. The
 * state is the client's own {@link GovernorBucket} (the same window mirror the embedded
 * governor uses), stored as JSON with a version: a process applies an operation to the
 * state it last saw and writes it back only if nobody wrote in between (one Lua call; on a
 * conflict the call returns the newer state and the operation is applied again). Slots in
 * flight are tickets naming their process; a process that stopped renewing its liveness key
 * (it crashed) has its tickets treated as requests that reached the service. A write is
 * refused while it keeps a ticket (or a waiters' claim) of a dead process, so that someone always
 * expires them.
 */
import type { Redis } from 'ioredis';
import { type BucketState, type BucketTicket, GovernorBucket } from '../../client/index.js';
import type { WaiterClaim } from './fair-share.js';

/** The shared state: the bucket, its tickets in flight, and whether anyone waits for an answer. */
interface SharedState {
  readonly bucket: BucketState;
  readonly tickets: Record<string, StoredTicket>;
  readonly next: number;
  /** A process waits for an answer to arrive (not for a time): wake it on the next settle. */
  readonly waiting: boolean;
  /** Per process, when its requests waiting for a slot started to wait (fair-share.ts). */
  readonly queued?: Record<string, WaiterClaim>;
}

interface StoredTicket {
  readonly epoch: number;
  readonly learning: boolean;
  readonly opener?: boolean;
  readonly owner: string;
}

/** A ticket as the governor holds it: the bucket's ticket and its id in the shared state. */
export interface SharedTicket {
  readonly id: string;
  readonly ticket: BucketTicket;
}

/** What an operation does to the bucket; its result is returned once the write succeeded. */
export interface BucketOperation<T> {
  (bucket: GovernorBucket, state: MutableShared): T;
}

/** The parts of the shared state an operation may change besides the bucket. */
export interface MutableShared {
  tickets: Record<string, StoredTicket>;
  next: number;
  waiting: boolean;
  /** Per process, its waiters' claim (fair-share.ts). */
  queued: Record<string, WaiterClaim>;
  /** A message (JSON) to publish once the write is done; the messages of a batch go out as one array. */
  publish: string | null;
}

const CAS_SCRIPT = `
local function dead(list)
  local found = {}
  for owner in string.gmatch(list, '%S+') do
    if redis.call('EXISTS', ARGV[4] .. owner) == 0 then table.insert(found, owner) end
  end
  return found
end
local v = tonumber(redis.call('HGET', KEYS[1], 'v') or '0')
if ARGV[1] ~= '-1' and tonumber(ARGV[1]) == v and #dead(ARGV[3]) == 0 then
  redis.call('HSET', KEYS[1], 'v', v + 1, 's', ARGV[2], 'o', ARGV[3])
  redis.call('PEXPIRE', KEYS[1], ARGV[5])
  if ARGV[7] ~= '' then redis.call('PUBLISH', ARGV[6], ARGV[7]) end
  return {1, v + 1}
end
local reply = {0, v, redis.call('HGET', KEYS[1], 's') or ''}
for i, owner in ipairs(dead(redis.call('HGET', KEYS[1], 'o') or '')) do reply[3 + i] = owner end
return reply
`;

/** How long an idle bucket is kept (longer than a daily window). */
const KEEP_MS = 3 * 86_400_000;

type CasReply = [1, number] | [0, number, string, ...string[]];

interface CasRedis {
  deflowBucketCas(key: string, version: string, state: string, owners: string, alivePrefix: string, keepMs: string, channel: string, message: string): Promise<CasReply>;
}

/** Registers the script on a connection (once per connection). */
export function defineBucketScript(redis: Redis): void {
  if (!(redis as unknown as Partial<CasRedis>).deflowBucketCas) redis.defineCommand('deflowBucketCas', { numberOfKeys: 1, lua: CAS_SCRIPT });
}

export interface SharedBucketOptions {
  readonly redis: Redis;
  /** The bucket's Redis key. */
  readonly key: string;
  /** The bucket's name (`pool`, or `pool#model:slug`). */
  readonly name: string;
  /** This process's id in tickets. */
  readonly owner: string;
  /** Liveness keys are this prefix plus an owner id. */
  readonly alivePrefix: string;
  /** Where wake-ups and news are published. */
  readonly channel: string;
}

/** One shared bucket, with the state this process saw last. */
export class SharedBucket {
  private version = -1;
  private state: SharedState | null = null;
  /** Redis calls made (for the benchmark's commands per job). */
  calls = 0;
  private readonly pending: { operation: BucketOperation<unknown>; resolve: (value: unknown) => void; reject: (error: unknown) => void }[] = [];
  private flushing = false;

  constructor(private readonly options: SharedBucketOptions) {
    defineBucketScript(options.redis);
  }

  /** The bucket as last seen (for `describe`). */
  view(): GovernorBucket {
    return this.state === null ? new GovernorBucket(this.options.name) : GovernorBucket.fromState(this.options.name, this.state.bucket);
  }

  /**
   * Applies `operation` to the current shared state and writes it back; retried on a conflict.
   * Operations of this process that arrive while a write is out are applied together in the
   * next write (a window's burst of permits, or of answers, costs a few Redis calls, not one
   * round trip each in turn).
   */
  apply<T>(operation: BucketOperation<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.pending.push({ operation, resolve: resolve as (value: unknown) => void, reject });
      if (!this.flushing) void this.flush();
    });
  }

  private async flush(): Promise<void> {
    this.flushing = true;
    try {
      while (this.pending.length > 0) {
        const batch = this.pending.splice(0);
        try {
          const results = await this.applyNow(batch.map((entry) => entry.operation));
          batch.forEach((entry, i) => entry.resolve(results[i]));
        } catch (error) {
          for (const entry of batch) entry.reject(error);
        }
      }
    } finally {
      this.flushing = false;
    }
  }

  private async applyNow(operations: readonly BucketOperation<unknown>[]): Promise<unknown[]> {
    const { redis, key, alivePrefix, channel } = this.options;
    let dead: string[] = [];
    for (;;) {
      const bucket = this.state === null ? new GovernorBucket(this.options.name) : GovernorBucket.fromState(this.options.name, this.state.bucket);
      const shared: MutableShared = { tickets: { ...(this.state?.tickets ?? {}) }, next: this.state?.next ?? 0, waiting: this.state?.waiting ?? false, queued: { ...(this.state?.queued ?? {}) }, publish: null };
      if (dead.length > 0) expireOwners(bucket, shared, new Set(dead));
      const messages: unknown[] = [];
      const results = operations.map((operation) => {
        shared.publish = null;
        const result = operation(bucket, shared);
        if (shared.publish !== null) messages.push(JSON.parse(shared.publish));
        return result;
      });
      const next: SharedState = { bucket: bucket.toState(), tickets: shared.tickets, next: shared.next, waiting: shared.waiting, ...(Object.keys(shared.queued).length > 0 ? { queued: shared.queued } : {}) };
      const owners = [...new Set([...Object.values(next.tickets).map((t) => t.owner), ...Object.keys(shared.queued)])].join(' ');
      this.calls++;
      const message = messages.length === 0 ? '' : JSON.stringify(messages);
      const reply = await (redis as unknown as CasRedis).deflowBucketCas(key, String(this.version), JSON.stringify(next), owners, alivePrefix, String(KEEP_MS), channel, message);
      if (reply[0] === 1) {
        this.version = reply[1];
        this.state = next;
        return results;
      }
      this.version = reply[1];
      this.state = reply[2] === '' ? null : (JSON.parse(reply[2]) as SharedState);
      dead = reply.slice(3) as string[];
    }
  }

  /** Records a new ticket in `shared`; returns its id. */
  addTicket(shared: MutableShared, ticket: BucketTicket): string {
    const id = `${this.options.owner}.${shared.next++}`;
    shared.tickets[id] = { epoch: ticket.epoch, learning: ticket.learning, ...(ticket.opener ? { opener: true } : {}), owner: this.options.owner };
    return id;
  }
}

/** Requests in flight of processes that died: they may have reached the service. Their waiters are gone. */
function expireOwners(bucket: GovernorBucket, shared: MutableShared, dead: ReadonlySet<string>): void {
  for (const owner of dead) delete shared.queued[owner];
  for (const [id, ticket] of Object.entries(shared.tickets)) {
    if (!dead.has(ticket.owner)) continue;
    bucket.abandon({ epoch: ticket.epoch, learning: ticket.learning, ...(ticket.opener ? { opener: true } : {}) }, true);
    delete shared.tickets[id];
    shared.waiting = true;
  }
}

/** The bucket ticket of a stored one, or undefined when it expired (its process was declared dead). */
export function takeTicket(shared: MutableShared, id: string): BucketTicket | undefined {
  const stored = shared.tickets[id];
  if (stored === undefined) return undefined;
  delete shared.tickets[id];
  return { epoch: stored.epoch, learning: stored.learning, ...(stored.opener ? { opener: true } : {}) };
}
