/**
 * A fuzzer over mutated workflows: a valid workflow with one or more of its values replaced
 * by arbitrary JSON-ish values (numbers, strings with NULs and `${{ }}`, deep lists, huge
 * names), written out and given to `deflow validate`. No input may reach exit 70 (an internal
 * error). 100 cases in `npm test`; `npm run fuzz` runs 10,000 (FUZZ_RUNS).
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { runCli } from '../../src/cli/main.js';
import { useWorkspace } from '../engine/run-helpers.js';
import { createFakeCliIO } from '../helpers/fake-cli-io.js';

const RUNS = Number(process.env.FUZZ_RUNS ?? 100);

const BASE = {
  version: 1,
  name: 'fuzz',
  output: 'out',
  defaults: { retries: 1 },
  steps: {
    transcribe: {
      task: 'audio.transcribe',
      for_each: { glob: 'clips/*.mp3' },
      with: { source_file: '${{ item.path }}', model: 'WhisperLargeV3', include_ts: false },
      save: '${{ item.stem }}.txt',
    },
    speak: {
      task: 'audio.speech',
      for_each: 'transcribe',
      with: { text: '${{ steps.transcribe.text }}', model: 'Kokoro', voice: 'af_sky', lang: 'en-us' },
      save: '${{ item.stem }}.mp3',
    },
    list: {
      task: 'audio.speech',
      for_each: { items: ['a', 'b'] },
      with: { text: 'say ${{ item.value }}', model: 'Kokoro', voice: 'af_sky', lang: 'en-us' },
    },
  },
};

/** Every path to a value of the base workflow. */
function paths(value: unknown, at: (string | number)[] = []): (string | number)[][] {
  if (typeof value !== 'object' || value === null) return [at];
  const keys = Array.isArray(value) ? value.map((_, i) => i) : Object.keys(value);
  return [at, ...keys.flatMap((key) => paths((value as Record<string | number, unknown>)[key], [...at, key]))];
}
const PATHS = paths(BASE).filter((p) => p.length > 0);

const nasty = fc.oneof(
  fc.constantFrom('', '\u0000', '${{', '${{ steps.nope.text }}', '${{ item.value }}', '../../etc/passwd', '/etc/passwd', '%zz', 'a'.repeat(300), '*', '[[[', 'clips/*.mp3', 'speak', 'transcribe', null),
  fc.string(),
  fc.integer(),
  fc.double(),
  fc.boolean(),
  fc.letrec((tie) => ({ deep: fc.oneof({ depthSize: 'small' }, fc.constant(1), fc.array(tie('deep'), { maxLength: 2 })) })).deep,
  fc.dictionary(fc.string({ maxLength: 8 }), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 3 }),
);

const mutation = fc.array(fc.tuple(fc.constantFrom(...PATHS), nasty, fc.boolean()), { minLength: 1, maxLength: 4 });

function mutate(base: unknown, changes: readonly [(string | number)[], unknown, boolean][]): unknown {
  const copy = structuredClone(base) as Record<string | number, unknown>;
  for (const [path, value, drop] of changes) {
    let parent: Record<string | number, unknown> | undefined = copy;
    for (const key of path.slice(0, -1)) {
      const next: unknown = parent?.[key];
      parent = typeof next === 'object' && next !== null ? (next as Record<string | number, unknown>) : undefined;
    }
    if (parent === undefined) continue;
    const last = path.at(-1)!;
    if (drop) delete parent[last];
    else parent[last] = value;
  }
  return copy;
}

describe('fuzzed workflows', () => {
  it(`never reach exit 70 (${RUNS} mutated workflows through deflow validate)`, async () => {
    const dir = await useWorkspace({ 'clips/a.mp3': Buffer.from('not really audio') });
    await fc.assert(
      fc.asyncProperty(mutation, async (changes) => {
        const text = stringify(mutate(BASE, changes));
        await writeFile(join(dir, 'workflow.yaml'), text);
        const io = createFakeCliIO(dir);
        const code = await runCli(['validate', 'workflow.yaml', '--offline'], io);
        if (code === 70 || io.stderrText().includes('unexpected error')) throw new Error(`exit ${code} on:\n${text}\n${io.stderrText()}`);
        expect([0, 1, 2]).toContain(code);
      }),
      { numRuns: RUNS, seed: Number(process.env.FUZZ_SEED ?? 13) },
    );
  }, 60_000 + RUNS * 200);
});
