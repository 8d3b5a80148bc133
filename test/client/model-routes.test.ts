/**
 * Route probing, the part both governors share (`ModelRoutes`): which bucket a model's
 * requests spend. A governor that only records what it is asked (every slot free at once, no
 * pacing) sits in a real client; the answers come from the emulator over loopback.
 */
import { EventEmitter } from 'node:events';
import { describe, expect, test } from 'vitest';
import { ModelRoutes, type BucketSlots } from '../../src/client/model-routes.js';
import type { AcquireRequest, Governor, GovernorBucketView, GovernorEvents, GovernorPermit } from '../../src/client/governor-types.js';
import type { Clock } from '../../src/common/index.js';
import { useClient, useEmulator } from './support.js';

const FLUX = { prompt: 'a red bicycle', model: 'Flux1schnell', width: 512, height: 512, guidance: 0, steps: 4, seed: 1 };
const ZIMAGE = { ...FLUX, model: 'ZImageTurbo_INT8', guidance: 1 };
const POOL = 'images/generations';
const FLUX_BUCKET = 'images/generations#model:Flux1schnell';

/** A governor around {@link ModelRoutes} that logs what the routes ask of its buckets, in order. */
class RecordingGovernor extends EventEmitter<GovernorEvents> implements Governor {
  readonly log: string[] = [];
  private readonly routes = new ModelRoutes();
  /** When set, a reservation of this bucket waits for it (to hold a probe). */
  hold: { key: string; until: Promise<void> } | null = null;
  private readonly slots: BucketSlots<number> = {
    reserve: async (key) => {
      this.log.push(`reserve ${key}`);
      if (this.hold?.key === key) await this.hold.until;
      return this.log.length;
    },
    permit: (key) => ({
      bucket: key,
      settle: (answer) => this.log.push(`settle ${key} ${answer.status}`),
      abandon: () => this.log.push(`abandon ${key}`),
    }),
    moveToModel: (pool, _slot, modelKey) => {
      this.log.push(`move ${pool} -> ${modelKey}`);
    },
  };

  constructor(readonly clock: Clock) {
    super();
  }

  acquire(request: AcquireRequest): Promise<GovernorPermit> {
    return this.routes.acquire(request, this.slots);
  }

  describe(): GovernorBucketView[] {
    return [];
  }
}

describe('model routes against the emulator', () => {
  test("a model's first request probes through the pool's bucket; its others wait, then spend the model's own bucket", async () => {
    const emulator = await useEmulator({ rate_limits: { endpoints: { [POOL]: { rpm: 100 } }, models: { Flux1schnell: { rpm: 50 } } } });
    const governor = new RecordingGovernor(emulator.clock);
    const client = useClient(emulator, { governor });
    await Promise.all(Array.from({ length: 4 }, () => client.submit('image.generate', FLUX)));
    // The probe's answer (X-RateLimit-Source: model) moves its slot; only then do the others reserve.
    expect(governor.log.slice(0, 2)).toEqual([`reserve ${POOL}`, `move ${POOL} -> ${FLUX_BUCKET}`]);
    expect(governor.log.slice(2).filter((line) => line.startsWith('reserve'))).toEqual(Array(3).fill(`reserve ${FLUX_BUCKET}`));
    expect(governor.log.filter((line) => line.startsWith('settle'))).toEqual(Array(3).fill(`settle ${FLUX_BUCKET} 200`));
    // Learned once: a later request goes straight to the model's bucket.
    await client.submit('image.generate', FLUX);
    expect(governor.log.slice(-2)).toEqual([`reserve ${FLUX_BUCKET}`, `settle ${FLUX_BUCKET} 200`]);
    expect(emulator.stats().submissions).toBe(5);
  });

  test("a model without limits of its own shares the pool's bucket after one probe", async () => {
    const emulator = await useEmulator({ rate_limits: { endpoints: { [POOL]: { rpm: 100 } }, models: { Flux1schnell: { rpm: 50 } } } });
    const governor = new RecordingGovernor(emulator.clock);
    const client = useClient(emulator, { governor });
    await Promise.all(Array.from({ length: 4 }, () => client.submit('image.generate', ZIMAGE)));
    // The probe settles in the pool's bucket before any other request reserves.
    expect(governor.log.slice(0, 2)).toEqual([`reserve ${POOL}`, `settle ${POOL} 200`]);
    expect(governor.log.slice(2).sort()).toEqual([...Array(3).fill(`reserve ${POOL}`), ...Array(3).fill(`settle ${POOL} 200`)]);
    expect(governor.log.some((line) => line.startsWith('move'))).toBe(false);
  });

  test('an answer that says nothing of the limits (a 500 without headers) leaves the route unknown: the next request probes again', async () => {
    const emulator = await useEmulator({ faults: { error_500_rate: 1 } });
    const governor = new RecordingGovernor(emulator.clock);
    const client = useClient(emulator, { governor, retry: { maxRetries: 0 } });
    const outcomes = await Promise.allSettled(Array.from({ length: 3 }, () => client.submit('image.generate', FLUX)));
    expect(outcomes.map((o) => o.status)).toEqual(['rejected', 'rejected', 'rejected']);
    // One probe at a time: each waited for the previous answer, which taught nothing.
    expect(governor.log).toEqual(Array(3).fill([`reserve ${POOL}`, `settle ${POOL} 500`]).flat());
  });

  test('a request waiting for another to probe is cancelled by its AbortSignal and never sent', async () => {
    const emulator = await useEmulator({ rate_limits: { endpoints: { [POOL]: { rpm: 100 } }, models: { Flux1schnell: { rpm: 50 } } } });
    const governor = new RecordingGovernor(emulator.clock);
    let release!: () => void;
    governor.hold = { key: POOL, until: new Promise<void>((resolve) => (release = resolve)) };
    const client = useClient(emulator, { governor });
    const probe = client.submit('image.generate', FLUX);
    const controller = new AbortController();
    const waiting = client.submit('image.generate', FLUX, { signal: controller.signal });
    controller.abort(new Error('stop'));
    await expect(waiting).rejects.toThrow('stop');
    expect(governor.log).toEqual([`reserve ${POOL}`]);
    release();
    await probe;
    expect(governor.log).toEqual([`reserve ${POOL}`, `move ${POOL} -> ${FLUX_BUCKET}`]);
    expect(emulator.stats().submissions).toBe(1);
  });
});
