import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { expect, it } from 'vitest';
import { RunReportBuilder } from '../../src/report/files/run-report.js';
import { done, node, runStarted, T0 } from './run-events.js';

// A real collection before each reading, so garbage from building events does not count.
setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

it('keeps 100,000 finished items in well under 80 MB of heap', () => {
  const builder = new RunReportBuilder();
  builder.handle(runStarted([{ id: 'fan', task: 'text-to-image', items: 100_000 }]));
  gc();
  const before = process.memoryUsage().heapUsed;
  for (let i = 0; i < 100_000; i++) {
    builder.handle(
      done(node('fan', i, `prompts/${i}.txt`), T0 + i, {
        requestId: `req-${i.toString(16).padStart(12, '0')}`,
        cost: 0.001,
        quotedCost: 0.001,
        outputs: [`out/fan/${i}.png`],
        startedAt: T0,
      }),
    );
  }
  gc();
  const growthMb = (process.memoryUsage().heapUsed - before) / 1024 / 1024;
  expect(builder.summary().totals.done).toBe(100_000);
  expect(growthMb).toBeLessThan(80);
});
