import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, it } from 'vitest';
import { mutatedText, workflowText } from './arbitraries.js';
import { useTempDirs, writeTree } from './helpers.js';
import { checkValidationProperties } from './property-check.js';

// The heavy property runs: DEFLOW_PROPERTY_RUNS cases per property (default 1,000; nightly 10,000).
// A failure prints fast-check's seed and path; replay it with fc.assert's { seed, path }.
const tempDir = useTempDirs();
const runs = Number(process.env.DEFLOW_PROPERTY_RUNS ?? 1000);
const examplesDir = join(import.meta.dirname, '..', '..', 'workflows');
const examples = readdirSync(examplesDir).filter((f) => f.endsWith('.yaml'));

async function holds(text: string, dir: string): Promise<boolean> {
  const failure = await checkValidationProperties(dir, text);
  if (failure) throw new Error(`${failure}\n--- input ---\n${text}`);
  return true;
}

describe('validation properties (slow)', () => {
  it('arbitrary text, including YAML-looking text', async () => {
    const dir = await tempDir();
    const yamlish = fc.array(fc.constantFrom('version: 1\n', 'steps:\n', '  a:\n', '    task: text.embed\n', '    with: {', '}', '[', ']', '&x ', '*x', '"${{ ', ' }}"', ': ', '- ', '\n', '  '), { maxLength: 40 }).map((parts) => parts.join(''));
    await fc.assert(fc.asyncProperty(fc.oneof(fc.string({ maxLength: 400 }), yamlish), (text) => holds(text, dir)), { numRuns: runs });
  });

  it('workflow-shaped documents with broken parts', async () => {
    const dir = await tempDir();
    await writeTree(dir, { 'list.txt': 'a\nb\n', 'list.csv': 'x,y\n1,2\n', 'list.jsonl': '{"x":1}\n', 'media/a.mp3': 'x' });
    await fc.assert(fc.asyncProperty(workflowText, (text) => holds(text, dir)), { numRuns: runs });
  });

  it.each(examples)('mutations of %s', async (file) => {
    const dir = await tempDir();
    const text = readFileSync(join(examplesDir, file), 'utf8');
    await fc.assert(fc.asyncProperty(mutatedText(text), (mutated) => holds(mutated, dir)), { numRuns: Math.ceil(runs / 4) });
  });
});
