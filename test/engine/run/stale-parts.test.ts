/**
 * The temporary files a killed run left in the blob store are removed by the next run before
 * it ends, however short it is (the clean-up was started and not awaited: 11 of 32 two-hour-old
 * files survived a short run).
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdir, readdir, utimes, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { newTempName } from '../../../src/common/index.js';
import { runWorkflow } from '../../../src/engine/run-workflow.js';
import { validateWorkflow } from '../../../src/workflow/validate/validate-workflow.js';
import { clientFor, useFastEmulator, useWorkspace, yaml } from '../run-helpers.js';

async function mkdirFor(file: string): Promise<void> {
  await mkdir(dirname(file), { recursive: true });
}

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

  it('a run first removes the temporary files of killed writers (they name their pid), never those of a live writer or another host', async () => {
    // A writer that has exited (its pid is gone), one that still runs, and one on another host.
    const dead = spawnSync('true').pid;
    const live = spawn('sleep', ['60'], { stdio: 'ignore' });
    try {
      const as = (pid: number): string => newTempName().replace(`.${process.pid}.`, `.${pid}.`);
      const orphans = [`.deflow/${as(dead)}`, `.deflow/runs/${as(dead)}`, `out/sub/${as(dead)}`];
      const kept = [`out/${as(live.pid!)}`, `out/${newTempName().replace(/\.[0-9a-f]{4}([0-9a-f]{4})\.part$/, '.ffff$1.part').replace(`.${process.pid}.`, `.${dead}.`)}`, 'out/notes.part'];
      const dir = await useWorkspace({ 'workflow.yaml': yaml('version: 1', 'output: out', 'steps:', '  embed:', '    task: text.embed', '    with: { input: "hello", model: Bge_M3_FP16 }') });
      for (const name of [...orphans, ...kept]) {
        await mkdirFor(join(dir, name));
        await writeFile(join(dir, name), 'half a file');
      }
      const emulator = await useFastEmulator();
      const validation = await validateWorkflow(join(dir, 'workflow.yaml'), { offline: true });
      if (!validation.ok || !validation.graph) throw new Error(validation.errors.map((e) => e.message).join('\n'));
      const outcome = await runWorkflow({ graph: validation.graph, client: clientFor(emulator), stateDir: join(dir, '.deflow'), onEvent: () => {} });
      expect(outcome.status).toBe('done');
      const left = (await readdir(dir, { recursive: true })).filter((f) => f.endsWith('.part')).sort();
      expect(left).toEqual(kept.sort());
    } finally {
      live.kill('SIGKILL');
    }
  });
});
