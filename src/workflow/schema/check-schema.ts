import { createRequire } from 'node:module';
import type { Ajv as AjvClass, ErrorObject, ValidateFunction } from 'ajv';
import { WORKFLOW_CODES, WorkflowError } from '../workflow-error.js';
import type { YamlLocator } from '../yaml/yaml-locator.js';
import { buildWorkflowSchema } from './build-workflow-schema.js';
import { EXPRESSION_REF } from './field-schema.js';
import { LOADER_AJV_OPTIONS } from './loader-ajv-options.js';
import { mapAjvError } from './map-ajv-error.js';
import { splitWorkflowSchema } from './split-workflow-schema.js';
import { STANDALONE_VALIDATORS_DIR, withValidatorFile } from './standalone-validator-files.js';
import { entriesOf, isRecord, own } from '../build/plain.js';

/** Options for {@link checkSchema}. */
export interface CheckSchemaOptions {
  /**
   * Drop the errors that a semantic rule reports better (unknown task ids and unknown `with`
   * fields, which the rules report with a "did you mean").
   * @default true
   */
  readonly leaveToRules?: boolean;
}

interface Validators {
  readonly core: ValidateFunction;
  readonly withOf: (task: string) => ValidateFunction | undefined;
}

let validators: Validators | undefined;

const requireHere = createRequire(import.meta.url);

/**
 * The compiled workflow schema: the build's precompiled validators when they are there
 * (standalone-validators.ts), else the schema compiled here, the shape at once and each task's
 * `with` rules on first use. Kept for the process: it is derived from constant catalogue data,
 * so one copy is correct.
 */
function getValidators(): Validators {
  validators ??= loadPrecompiled() ?? compileValidators();
  return validators;
}

/** The validators the build wrote into `validators/` beside this file; undefined when absent. */
function loadPrecompiled(): Validators | undefined {
  let core: { validate: ValidateFunction; tasks: readonly string[] };
  try {
    core = requireHere(`./${STANDALONE_VALIDATORS_DIR}/core.cjs`) as typeof core;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'MODULE_NOT_FOUND') return undefined;
    throw error;
  }
  const tasks = new Set(core.tasks);
  return {
    core: core.validate,
    // Only a known task names a file: the task string comes from the workflow.
    withOf: (task) => (tasks.has(task) ? (requireHere(`./${STANDALONE_VALIDATORS_DIR}/${withValidatorFile(task)}`) as { validate: ValidateFunction }).validate : undefined),
  };
}

function compileValidators(): Validators {
  // Loaded only here: a built CLI validates with the precompiled code and never loads ajv.
  const { Ajv } = requireHere('ajv') as { Ajv: typeof AjvClass };
  const ajv = new Ajv(LOADER_AJV_OPTIONS);
  const { core, withByTask } = splitWorkflowSchema(buildWorkflowSchema());
  const compiledWith = new Map<string, ValidateFunction>();
  return {
    core: ajv.compile(core),
    withOf: (task) => {
      const schema = withByTask.get(task);
      if (!schema) return undefined;
      const found = compiledWith.get(task) ?? ajv.compile(schema);
      compiledWith.set(task, found);
      return found;
    },
  };
}

/** Validates a parsed document against the workflow schema; each error comes back at its file position. */
export function checkSchema(document: unknown, locator: YamlLocator, options: CheckSchemaOptions = {}): WorkflowError[] {
  const { core, withOf } = getValidators();
  const raw: ErrorObject[] = core(document) ? [] : [...(core.errors ?? [])];
  for (const [id, step] of entriesOf(own(document, 'steps'))) {
    const task = own(step, 'task');
    const values = own(step, 'with');
    const validate = typeof task === 'string' && isRecord(values) ? withOf(task) : undefined;
    if (!validate || validate(values)) continue;
    const prefix = `/steps/${id.replace(/~/g, '~0').replace(/\//g, '~1')}/with`;
    raw.push(...(validate.errors ?? []).map((e) => ({ ...e, instancePath: `${prefix}${e.instancePath}` })));
  }
  if (raw.length === 0) return [];
  const errors = selectErrors(raw, options.leaveToRules ?? true);
  const seen = new Set<string>();
  const problems: WorkflowError[] = [];
  for (const error of errors) {
    const problem = mapAjvError(error, document);
    const location = locator.at(problem.path, { key: problem.key });
    const key = `${location.path}\u0000${problem.reason}`;
    if (seen.has(key)) continue;
    seen.add(key);
    problems.push(new WorkflowError(WORKFLOW_CODES.schema, location, problem.reason));
  }
  return problems;
}

/**
 * Keeps the errors worth showing. Every field accepts an expression as an alternative
 * (`anyOf: [rules, expression]`); the expression branch's failure says nothing useful, so it
 * goes, and an `anyOf` whose branches explain themselves goes too.
 */
function selectErrors(errors: readonly ErrorObject[], leaveToRules: boolean): ErrorObject[] {
  let kept = errors.filter((e) => !e.schemaPath.startsWith(`${EXPRESSION_REF}/`) && e.keyword !== 'if' && e.keyword !== 'propertyNames');
  if (leaveToRules) kept = kept.filter((e) => !isLeftToRules(e));
  const out: ErrorObject[] = [];
  const dropped = new Set<ErrorObject>();
  for (const error of kept) {
    if (error.keyword !== 'anyOf') continue;
    const prefix = `${error.schemaPath}/`;
    const branches = new Map<string, ErrorObject[]>();
    for (const inner of kept) {
      // The same schema path fails at every value it checks (two steps' timeouts): only this value's branches.
      if (!inner.schemaPath.startsWith(prefix) || !isAtOrUnder(inner.instancePath, error.instancePath)) continue;
      const branch = inner.schemaPath.slice(prefix.length).split('/')[0] ?? '';
      branches.set(branch, [...(branches.get(branch) ?? []), inner]);
    }
    if (branches.size === 0) continue;
    dropped.add(error);
    if (branches.size === 1) continue;
    // Several branches failed: keep the one whose type matched, else merge into one type error.
    const matched = [...branches.values()].find((list) => !list.some((e) => e.keyword === 'type' && e.instancePath === error.instancePath));
    for (const list of branches.values()) if (list !== matched) for (const e of list) dropped.add(e);
    if (!matched) out.push(mergedTypeError(error, [...branches.values()]));
  }
  return [...kept.filter((e) => !dropped.has(e)), ...out].sort(byPointer);
}

function isAtOrUnder(path: string, at: string): boolean {
  return path === at || path.startsWith(`${at}/`);
}

function isLeftToRules(error: ErrorObject): boolean {
  // An unknown task name is the rule's (with a suggestion); a task that is not even a string stays here.
  if (error.keyword === 'enum' && typeof error.data === 'string' && /^\/steps\/[^/]+\/task$/.test(error.instancePath)) return true;
  return error.keyword === 'additionalProperties' && /^\/steps\/[^/]+\/with$/.test(error.instancePath);
}

function mergedTypeError(anyOf: ErrorObject, branches: ErrorObject[][]): ErrorObject {
  const types = branches.flatMap((list) => list.filter((e) => e.keyword === 'type').flatMap((e) => [(e.params as { type: unknown }).type].flat()));
  return { ...anyOf, keyword: 'type', params: { type: [...new Set(types.map(String))] } };
}

function byPointer(a: ErrorObject, b: ErrorObject): number {
  return a.instancePath < b.instancePath ? -1 : a.instancePath > b.instancePath ? 1 : 0;
}
