import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { mutatedText, workflowText } from './arbitraries.js';
import { useTempDirs, writeTree } from './helpers.js';
import { checkValidationProperties } from './property-check.js';

// Fast versions of the property runs (100 cases each); properties.slow.test.ts runs thousands.
const tempDir = useTempDirs();
const runs = 100;
const lists = { 'list.txt': 'a\nb\n', 'list.csv': 'x,y\n1,2\n', 'list.jsonl': '{"x":1}\n', 'media/a.mp3': 'x' };
const example = readFileSync(join(import.meta.dirname, '..', '..', 'workflows', 'podcast-dub.yaml'), 'utf8');

async function holds(text: string, dir: string): Promise<boolean> {
  const failure = await checkValidationProperties(dir, text);
  if (failure) throw new Error(`${failure}\n--- input ---\n${text}`);
  return true;
}

describe('validation properties (fast)', () => {
  it('arbitrary text never throws anything but coded errors, and validates the same twice', async () => {
    const dir = await tempDir();
    await fc.assert(fc.asyncProperty(fc.string({ maxLength: 200 }), (text) => holds(text, dir)), { numRuns: runs });
  });

  it('workflow-shaped documents with broken parts never throw and are deterministic', async () => {
    const dir = await tempDir();
    await writeTree(dir, lists);
    await fc.assert(fc.asyncProperty(workflowText, (text) => holds(text, dir)), { numRuns: runs });
  });

  it('mutations of a valid example never throw and are deterministic', async () => {
    const dir = await tempDir();
    await writeTree(dir, { 'media/episodes/a.mp3': 'x' });
    await fc.assert(fc.asyncProperty(mutatedText(example), (text) => holds(text, dir)), { numRuns: runs });
  });

  it.each([
    ['an empty workflow', 'version: 1\nsteps: {}\n'],
    ['a glob rendering to "/*.mp3" (seed 1420581890)', 'version: 1\nsteps:\n  t:\n    task: text.embed\n    for_each: { glob: "${{ inputs.nope }}/*.mp3" }\n    with: { input: x, model: Bge_M3_FP16 }\n'],
    ['a glob rendering to an empty pattern', 'version: 1\ninputs:\n  g: { type: string, default: "" }\nsteps:\n  t:\n    task: text.embed\n    for_each: { glob: "${{ inputs.g }}" }\n    with: { input: x, model: Bge_M3_FP16 }\n'],
  ])('keeps a found regression fixed: %s', async (_name, text) => {
    expect(await holds(text, await tempDir())).toBe(true);
  });
});
