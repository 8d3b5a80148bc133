/**
 * The temporary files a killed run left in the blob store are removed by the next run before
 * it ends, however short it is (the clean-up was started and not awaited: 11 of 32 two-hour-old
 * files survived a short run).
 */
import { readdir, utimes } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runWorkflow } from '../../../src/engine/run-workflow.js';
import { validateWorkflow } from '../../../src/workflow/validate/validate-workflow.js';
import { clientFor, useFastEmulator, useWorkspace, yaml } from '../run-helpers.js';

const WORKFLOW = yaml('version: 1', 'steps:', '  embed:', '    task: text.embed', '    with: { input: "hello", model: Bge_M3_FP16 }');

describe('stale temporary files', () => {
  it('a short run removes every .part file over an hour old before it returns, and keeps fresh ones', async () => {
    const stale = Object.fromEntries(Array.from({ length: 400 }, (_, i) => [`.deflow/blobs/tmp/old-${i}.part`, 'x']));
    const dir = await useWorkspace({ 'workflow.yaml': WORKFLOW, ...stale, '.deflow/blobs/tmp/fresh.part': 'y' });
    const twoHoursAgo = new Date(Date.now() - 2 * 3600_000);
    for (const name of Object.keys(stale)) await utimes(join(dir, name), twoHoursAgo, twoHoursAgo);
    const emulator = await useFastEmulator();
    const validation = await validateWorkflow(join(dir, 'workflow.yaml'), { offline: true });
    if (!validation.ok || !validation.graph) throw new Error(validation.errors.map((e) => e.message).join('\n'));
    const outcome = await runWorkflow({ graph: validation.graph, client: clientFor(emulator), stateDir: join(dir, '.deflow'), onEvent: () => {} });
    expect(outcome.status).toBe('done');
    expect(await readdir(join(dir, '.deflow/blobs/tmp'))).toEqual(['fresh.part']);
  });
});
