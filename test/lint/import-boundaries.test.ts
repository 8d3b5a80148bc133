import { readFileSync } from 'node:fs';
import { ESLint } from 'eslint';
import tseslint from 'typescript-eslint';
import { describe, expect, it } from 'vitest';

// The house rules of docs/architecture.md ("Layers and rooms") must fire, with the project's
// own eslint.config.js. Two ways in: source text linted as if it lived at a path under src/
// (type information off: the boundary rule needs none), and real source files of the project
// with one violation planted in a copy of their text (the full, typed configuration).
const quick = new ESLint({
  cwd: process.cwd(),
  overrideConfig: [tseslint.configs.disableTypeChecked, { languageOptions: { parserOptions: { projectService: false } } }],
});
const full = new ESLint({ cwd: process.cwd() });

async function violations(linter: ESLint, filePath: string, code: string): Promise<string[]> {
  const [result] = await linter.lintText(code, { filePath });
  return (result?.messages ?? []).filter((m) => m.ruleId === 'house/imports').map((m) => m.message);
}
const restrictedImports = (filePath: string, code: string) => violations(quick, filePath, code);

/** The real file's text with `line` added after its imports. */
function planted(file: string, line: string): string {
  return `${line}\n${readFileSync(file, 'utf8')}`;
}

describe('import boundaries (eslint.config.js)', () => {
  it('refuses an engine → cli import', async () => {
    const messages = await restrictedImports('src/engine/run/boundary-fixture.ts', "import { EXIT } from '../../cli/main.js';\nexport const code = EXIT;\n");
    expect(messages).toEqual([expect.stringContaining('engine/ may not import cli/')]);
  });

  it('refuses report → cli, workflow → report, emulator → client and service → common', async () => {
    expect(await restrictedImports('src/report/boundary-fixture.ts', "export { runCli } from '../cli/main.js';\n")).toHaveLength(1);
    expect(await restrictedImports('src/workflow/format/boundary-fixture.ts', "export { createReporters } from '../../report/index.js';\n")).toHaveLength(1);
    expect(await restrictedImports('src/emulator/boundary-fixture.ts', "export { DeapiClient } from '../client/index.js';\n")).toHaveLength(1);
    expect(await restrictedImports('src/service/boundary-fixture.ts', "export { systemClock } from '../common/index.js';\n")).toHaveLength(1);
  });

  it('refuses a deep import into another layer or another engine role folder', async () => {
    expect(await restrictedImports('src/engine/run/boundary-fixture.ts', "export { DeapiClient } from '../../client/deapi-client.js';\n")).toEqual([
      expect.stringContaining('import client/ through its index.ts'),
    ]);
    expect(await restrictedImports('src/engine/run/boundary-fixture.ts', "export { quoteRun } from '../quote/quote.js';\n")).toEqual([
      expect.stringContaining('import engine/quote/ through its index.ts'),
    ]);
  });

  it('refuses an import() and an import("…") type across a boundary, and a type-only import', async () => {
    expect(await restrictedImports('src/client/boundary-fixture.ts', "export const load = () => import('../engine/index.js');\n")).toEqual([expect.stringContaining('client/ may not import engine/')]);
    expect(await restrictedImports('src/client/boundary-fixture.ts', "export type R = import('../engine/index.js').RunEvent;\n")).toEqual([expect.stringContaining('client/ may not import engine/')]);
    expect(await restrictedImports('src/workflow/boundary-fixture.ts', "import type { RunEvent } from '../engine/index.js';\nexport type R = RunEvent;\n")).toEqual([expect.stringContaining('workflow/ may not import engine/')]);
  });

  it('keeps the engine role folders in their order and away from the composition root', async () => {
    expect(await restrictedImports('src/engine/cache/boundary-fixture.ts', "import type { NodeRunners } from '../run/index.js';\nexport type R = NodeRunners;\n")).toEqual([
      expect.stringContaining('engine/cache/ may not import engine/run/'),
    ]);
    expect(await restrictedImports('src/engine/run/poll/boundary-fixture.ts', "export { quoteRun } from '../../journal/index.js';\n")).toEqual([
      expect.stringContaining('engine/run/ may not import engine/journal/'),
    ]);
    expect(await restrictedImports('src/engine/queue/boundary-fixture.ts', "export { runWorkflowWith } from '../run-workflow.js';\n")).toEqual([
      expect.stringContaining("engine/queue/ may not import the engine's composition root"),
    ]);
  });

  it('allows imports through a folder index and within a folder', async () => {
    expect(await restrictedImports('src/engine/run/boundary-fixture.ts', "export { DeapiClient } from '../../client/index.js';\nexport { quoteRun } from '../quote/index.js';\nexport { Scheduler } from './scheduler.js';\n")).toEqual([]);
    expect(await restrictedImports('src/cli/boundary-fixture.ts', "export { runOpened } from '../engine/index.js';\nexport { createReporters } from '../report/index.js';\nexport const q = () => import('../engine/distributed.js');\n")).toEqual([]);
  });

  it('fails on violations planted in copies of real source files, with the full configuration', { timeout: 120_000 }, async () => {
    const cases: Array<[file: string, line: string, message: string]> = [
      ['src/engine/run/scheduler.ts', "export { EXIT } from '../../cli/main.js';", 'engine/ may not import cli/'],
      ['src/workflow/build/build-workflow.ts', "export type { RunEvent } from '../../engine/index.js';", 'workflow/ may not import engine/'],
      ['src/client/deapi-client.ts', "export const planted = () => import('../engine/index.js');", 'client/ may not import engine/'],
      ['src/service/tasks.ts', "export { DeapiClient } from '../client/index.js';", 'service/ may not import client/'],
      ['src/report/terminal/tty-renderer.ts', "export type { EXIT } from '../../cli/main.js';", 'report/ may not import cli/'],
    ];
    for (const [file, line, message] of cases) {
      expect(await violations(full, file, readFileSync(file, 'utf8')), file).toEqual([]);
      expect(await violations(full, file, planted(file, line)), file).toEqual([expect.stringContaining(message)]);
    }
  });
});
