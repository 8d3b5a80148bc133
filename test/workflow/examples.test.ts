import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { validateWorkflow } from '../../src/workflow/validate/validate-workflow.js';

const dir = join(import.meta.dirname, '..', '..', 'workflows');
const examples = readdirSync(dir).filter((f) => f.endsWith('.yaml'));

describe('example workflows', () => {
  it('include the ones the README promises', () => {
    expect(examples).toEqual(
      expect.arrayContaining(['demo.yaml', 'podcast-dub.yaml', 'describe-videos.yaml', 'image-batch.yaml', 'music-captions.yaml', 'transcript-embeddings.yaml', 'ocr-scans.yaml']),
    );
  });

  it.each(examples)('%s validates offline with no warnings', async (file) => {
    const result = await validateWorkflow(file, { cwd: dir, offline: true, modelCacheFile: join(dir, 'no-cache.json') });
    expect(result.errors.map((e) => e.message)).toEqual([]);
    expect(result.warnings.map((w) => w.message)).toEqual([]);
    expect(result.plan?.jobs).toBeGreaterThan(0);
  });

  it('demo.yaml stays small: a few jobs that finish fast on the emulator', async () => {
    const result = await validateWorkflow('demo.yaml', { cwd: dir, offline: true });
    expect(result.plan?.steps.map((s) => [s.id, s.items])).toEqual([
      ['transcribe', 2],
      ['speak', 2],
      ['describe', 1],
    ]);
  });
});
