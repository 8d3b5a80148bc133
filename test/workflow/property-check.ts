import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { DeflowError } from '../../src/common/deflow-error.js';
import { validateWorkflow } from '../../src/workflow/validate/validate-workflow.js';

/**
 * Validates `text` as `wf.yaml` in `dir` twice and checks the properties every input must
 * keep: no exception but a coded deflow one, every problem coded `E_WORKFLOW_*` with a real
 * position, and the same answer both times. Returns a description of the failure, or null.
 */
export async function checkValidationProperties(dir: string, text: string): Promise<string | null> {
  await writeFile(join(dir, 'wf.yaml'), text);
  const describe = async (): Promise<string> => {
    try {
      const result = await validateWorkflow('wf.yaml', { cwd: dir, offline: true });
      for (const problem of [...result.errors, ...result.warnings]) {
        if (!problem.code.startsWith('E_WORKFLOW_')) return `uncoded problem ${problem.code}`;
        if (!(problem.location.line >= 1 && problem.location.col >= 1)) return `bad position in ${problem.message}`;
      }
      if (result.ok !== (result.errors.length === 0)) return 'ok disagrees with errors';
      return JSON.stringify({ ok: result.ok, errors: result.errors.map((e) => e.toJSON()), warnings: result.warnings.map((w) => w.toJSON()), plan: result.plan ?? null });
    } catch (error) {
      return error instanceof DeflowError ? `coded:${error.code}:${error.message}` : `THREW ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`;
    }
  };
  const first = await describe();
  if (first.startsWith('THREW') || first.startsWith('uncoded') || first.startsWith('bad position') || first.startsWith('ok disagrees')) return first;
  const second = await describe();
  return first === second ? null : `not deterministic:\n${first}\n${second}`;
}
