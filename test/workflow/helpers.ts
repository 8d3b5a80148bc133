import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll } from 'vitest';
import type { Rule } from '../../src/workflow/rules/rule-context.js';
import { loadWorkflow } from '../../src/workflow/validate/load-workflow.js';
import { createRuleContext, type ValidateOptions, type ValidationResult, validateWorkflow } from '../../src/workflow/validate/validate-workflow.js';
import type { WorkflowError } from '../../src/workflow/workflow-error.js';

/** Files to write beside a workflow: path → content. */
export type Tree = Readonly<Record<string, string | Buffer>>;

/** A temp-dir factory whose folders are removed after the test file. */
export function useTempDirs(prefix = 'deflow-workflow-'): () => Promise<string> {
  const made: string[] = [];
  afterAll(async () => {
    await Promise.all(made.map((dir) => rm(dir, { recursive: true, force: true })));
  });
  return async () => {
    const dir = await mkdtemp(join(tmpdir(), prefix));
    made.push(dir);
    return dir;
  };
}

/** Writes files (creating folders) under `dir`. */
export async function writeTree(dir: string, tree: Tree): Promise<void> {
  for (const [path, content] of Object.entries(tree)) {
    await mkdir(dirname(join(dir, path)), { recursive: true });
    await writeFile(join(dir, path), content);
  }
}

/** Writes `wf.yaml` (plus files) into a fresh dir and validates it offline from that dir. */
export async function validateText(
  makeDir: () => Promise<string>,
  yaml: string,
  options: { files?: Tree; validate?: ValidateOptions } = {},
): Promise<ValidationResult & { dir: string }> {
  const dir = await makeDir();
  await writeTree(dir, { 'wf.yaml': yaml, ...options.files });
  const result = await validateWorkflow('wf.yaml', { offline: true, cwd: dir, ...options.validate });
  return { ...result, dir };
}

/** Runs one rule alone on a workflow text and returns its error lines. */
export async function runRule(
  makeDir: () => Promise<string>,
  rule: Rule,
  yaml: string,
  options: { files?: Tree; validate?: Omit<ValidateOptions, 'cwd'> } = {},
): Promise<{ errors: string[]; warnings: string[] }> {
  const dir = await makeDir();
  await writeTree(dir, { 'wf.yaml': yaml, ...options.files });
  const loaded = await loadWorkflow('wf.yaml', { cwd: dir });
  if (!loaded.workflow) throw new Error(`workflow did not load: ${loaded.errors.map((e) => e.message).join('\n')}`);
  const errors: WorkflowError[] = [];
  const warnings: WorkflowError[] = [];
  const context = await createRuleContext(loaded.workflow, { offline: true, ...options.validate }, [], []);
  await rule.check({ ...context, report: (e) => errors.push(e), warn: (w) => warnings.push(w) });
  return { errors: errors.map((e) => e.message), warnings: warnings.map((w) => w.message) };
}

/** Error lines of a result. */
export function lines(result: { errors: readonly WorkflowError[] }): string[] {
  return result.errors.map((e) => e.message);
}

/** A minimal valid transcription step body, for building test workflows. */
export const TRANSCRIBE_URL = '{ source_url: "https://www.youtube.com/watch?v=abc", model: WhisperLargeV3, include_ts: false }';
