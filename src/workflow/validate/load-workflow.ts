import { isAbsolute, resolve } from 'node:path';
import { buildWorkflow } from '../build/build-workflow.js';
import { checkSchema } from '../schema/check-schema.js';
import type { Workflow } from '../types.js';
import type { WorkflowError } from '../workflow-error.js';
import { parseYaml } from '../yaml/parse-yaml.js';
import { readSourceFile } from '../yaml/read-source-file.js';

/** Options for {@link loadWorkflow}. */
export interface LoadWorkflowOptions {
  /** Folder a relative `file` is read from. @default process.cwd() */
  readonly cwd?: string;
}

/** A loaded workflow (absent when the YAML itself is broken) and the YAML and schema problems. */
export interface LoadedWorkflow {
  readonly workflow?: Workflow;
  readonly errors: readonly WorkflowError[];
}

/**
 * Reads (size-capped), parses (positions kept) and schema-checks a workflow file, then builds
 * the typed workflow. Schema problems do not stop the build, so the semantic rules can report
 * theirs in the same pass; a file that is not valid YAML stops here.
 */
export async function loadWorkflow(file: string, options: LoadWorkflowOptions = {}): Promise<LoadedWorkflow> {
  const absolute = isAbsolute(file) ? file : resolve(options.cwd ?? process.cwd(), file);
  const text = await readSourceFile(absolute, file);
  const parsed = parseYaml(text, file);
  if (parsed.errors.length > 0) return { errors: parsed.errors };
  const errors = checkSchema(parsed.value, parsed.locator);
  return { workflow: buildWorkflow(parsed.value, absolute, parsed.locator), errors };
}
