/**
 * "Tasks are exhaustive by type": adding a literal to the `TaskId` union, and nothing else,
 * must fail the typecheck at the catalogue and at every per-task table. Type-checks the
 * project (tsconfig.json) with src/service/types.ts given one more task id in memory.
 */
import { createRequire } from 'node:module';
import { readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const ts = createRequire(import.meta.url)('typescript') as typeof import('typescript');
const root = resolve(dirname(new URL(import.meta.url).pathname), '..', '..');
const TYPES = join(root, 'src', 'service', 'types.ts');

function filesWithErrors(patchTypes: (source: string) => string): Map<string, string[]> {
  const configPath = join(root, 'tsconfig.json');
  const config = ts.getParsedCommandLineOfConfigFile(configPath, {}, { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => {} });
  if (!config) throw new Error('tsconfig.json did not parse');
  const host = ts.createCompilerHost(config.options);
  const readFile = host.readFile.bind(host);
  host.readFile = (file) => (resolve(file) === TYPES ? patchTypes(readFileSync(TYPES, 'utf8')) : readFile(file));
  const program = ts.createProgram({ rootNames: config.fileNames.filter((f) => f.includes('/src/')), options: { ...config.options, noEmit: true }, host });
  const byFile = new Map<string, string[]>();
  for (const d of ts.getPreEmitDiagnostics(program)) {
    const file = d.file ? relative(root, d.file.fileName) : '(global)';
    byFile.set(file, [...(byFile.get(file) ?? []), ts.flattenDiagnosticMessageText(d.messageText, '\n')]);
  }
  return byFile;
}

describe('adding a task id', () => {
  it('type-checks as it is', () => {
    expect([...filesWithErrors((s) => s).keys()]).toEqual([]);
  });

  it('fails to compile at the catalogue and every per-task table until each handles it', () => {
    const errors = filesWithErrors((s) => s.replace("  | 'prompt.enhance';", "  | 'prompt.enhance'\n  | 'audio.voice-clone';"));
    // The list docs/adding-a-task.md walks through: keep the two in step.
    expect([...errors.keys()].sort()).toEqual([
      'src/emulator/account/prices.ts',
      'src/emulator/jobs/job-timing.ts',
      'src/emulator/jobs/job-type.ts',
      'src/emulator/jobs/prompt-enhancer.ts',
      'src/emulator/jobs/result-plan.ts',
      'src/emulator/limits/rate-tiers.ts',
      'src/emulator/requests/validate-task-rules.ts',
      'src/engine/quote/price-classes.ts',
      'src/engine/quote/quote-estimate.ts',
      'src/engine/quote/quote-pending.ts',
      'src/service/tasks.ts',
    ]);
    expect(errors.get('src/service/tasks.ts')!.join('\n')).toContain('audio.voice-clone');
  });
});
