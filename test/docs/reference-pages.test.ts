/**
 * The pages of docs/reference/ are generated from the code (the command tree, the catalogue, the
 * error and exit codes, the schemas). This regenerates them in memory and fails when a committed
 * page differs: a new command, flag, task or code must come with its regenerated page.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REGENERATE_COMMAND, referencePages } from '../../src/cli/reference/reference-pages.js';

const root = join(import.meta.dirname, '..', '..');
const pages = referencePages(root);

/** Where two texts first differ, by line, for the failure message. */
function firstDifference(committed: string, generated: string): string {
  const a = committed.split('\n');
  const b = generated.split('\n');
  const line = a.findIndex((text, i) => text !== b[i]);
  const at = line < 0 ? a.length : line;
  return `line ${at + 1}: committed ${JSON.stringify(a[at] ?? '(end)')}, generated ${JSON.stringify(b[at] ?? '(end)')}`;
}

describe('generated reference pages', () => {
  for (const [path, content] of pages) {
    it(`${path} is what \`${REGENERATE_COMMAND}\` writes`, () => {
      const file = join(root, path);
      expect(existsSync(file), `${path} is missing: run \`${REGENERATE_COMMAND}\` and commit it`).toBe(true);
      const committed = readFileSync(file, 'utf8');
      expect(committed, `${path} is stale: run \`${REGENERATE_COMMAND}\` and commit the result (${firstDifference(committed, content)})`).toBe(content);
    });
  }

  it('cover every command, task, error code and schema', () => {
    const cli = pages.get('docs/reference/cli.md')!;
    for (const command of ['deflow run', 'deflow quote', 'deflow account balance', 'deflow worker']) expect(cli).toContain(`## ${command}`);
    expect(cli).toContain('`--max-cost <usd>`');
    expect(pages.get('docs/reference/tasks.md')).toContain('## `audio.transcribe`');
    const codes = pages.get('docs/reference/exit-codes.md')!;
    expect(codes).toContain('`E_WORKFLOW_YAML`');
    expect(codes).toMatch(/\| 130 \| `interrupted` \|/);
    const schemas = pages.get('docs/reference/schemas.md')!;
    for (const name of ['events', 'report', 'quote', 'validate', 'status', 'workflow', 'emulator']) expect(schemas).toContain(`## ${name}.schema.json`);
  });
});
