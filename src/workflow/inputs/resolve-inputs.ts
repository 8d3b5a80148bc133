import { didYouMean } from '../did-you-mean.js';
import { showValue } from '../schema/json-type.js';
import type { InputDef, Workflow } from '../types.js';
import { WORKFLOW_CODES, WorkflowError } from '../workflow-error.js';

/** Input values as given by the user, with where each came from (for messages). */
export interface GivenInputs {
  readonly values: Readonly<Record<string, unknown>>;
  /** `--input`, or the inputs file's name; @default '--input' */
  readonly origins?: Readonly<Record<string, string>>;
}

/** The inputs expressions see, and the problems found while resolving them. */
export interface ResolvedInputs {
  readonly values: Readonly<Record<string, unknown>>;
  readonly errors: readonly WorkflowError[];
}

/**
 * Checks given inputs against the declarations and fills defaults. Strings (from the command
 * line) are converted to the declared type; an unknown, missing or ill-typed input is an error
 * at the declaration (or at `inputs` for an undeclared one).
 */
export function resolveInputs(workflow: Workflow, given: GivenInputs = { values: {} }): ResolvedInputs {
  const values: Record<string, unknown> = {};
  const errors: WorkflowError[] = [];
  const locator = workflow.locator;
  const names = [...workflow.inputs.keys()];
  for (const [name, value] of Object.entries(given.values)) {
    if (workflow.inputs.has(name)) continue;
    const expected = names.length > 0 ? `; declared inputs: ${names.join(', ')}${didYouMean(name, names)}` : '; this workflow declares no inputs';
    errors.push(
      new WorkflowError(WORKFLOW_CODES.input, { ...locator.at(['inputs'], { key: true }), path: `inputs.${name}` }, `unknown input (given by ${originOf(given, name)} ${name}=${showValue(value)})${expected}`),
    );
  }
  for (const input of workflow.inputs.values()) {
    const given_ = Object.hasOwn(given.values, input.name) ? given.values[input.name] : undefined;
    if (given_ === undefined || given_ === null) {
      if (input.default !== undefined) {
        // A default of the wrong type is reported once, here, and not passed on.
        const converted = convertInput(input, input.default);
        if (converted.ok) values[input.name] = converted.value;
        else errors.push(new WorkflowError(WORKFLOW_CODES.input, locator.at([...input.path, 'default']), converted.error));
      } else if (input.required) errors.push(new WorkflowError(WORKFLOW_CODES.input, locator.at(input.path, { key: true }), `missing a value: pass --input ${input.name}=… (it has no default)`));
      else values[input.name] = null;
      continue;
    }
    const converted = convertInput(input, given_);
    if (converted.ok) values[input.name] = converted.value;
    else errors.push(new WorkflowError(WORKFLOW_CODES.input, locator.at(input.path, { key: true }), `${converted.error} (given by ${originOf(given, input.name)})`));
  }
  return { values, errors };
}

/** A converted input value, or why it could not be converted. */
export type ConvertedInput = { readonly ok: true; readonly value: unknown } | { readonly ok: false; readonly error: string };

/** Converts one value to the input's type, or says why it cannot. */
export function convertInput(input: InputDef, value: unknown): ConvertedInput {
  const got = `got ${showValue(value)}`;
  const ok = (v: unknown): ConvertedInput => ({ ok: true, value: v });
  const fail = (error: string): ConvertedInput => ({ ok: false, error });
  switch (input.type) {
    case 'string':
      if (typeof value === 'string') return ok(value);
      return typeof value === 'number' || typeof value === 'boolean' ? ok(String(value)) : fail(`expected a string, ${got}`);
    case 'number':
    case 'integer': {
      const number = typeof value === 'number' ? value : typeof value === 'string' && value.trim() !== '' ? Number(value) : Number.NaN;
      if (!Number.isFinite(number)) return fail(`expected a number, ${got}`);
      if (input.type === 'integer' && !Number.isInteger(number)) return fail(`expected an integer, ${got}`);
      return ok(number);
    }
    case 'boolean':
      if (typeof value === 'boolean') return ok(value);
      if (value === 'true' || value === 'false') return ok(value === 'true');
      return fail(`expected true or false, ${got}`);
    case 'choice': {
      const options = input.options ?? [];
      const match = options.find((option) => option === value || String(option) === String(value));
      if (match !== undefined) return ok(match);
      return fail(`expected one of ${options.map(showValue).join(', ')}, ${got}${didYouMean(String(value), options.map(String))}`);
    }
  }
}

function originOf(given: GivenInputs, name: string): string {
  return given.origins?.[name] ?? '--input';
}
