import { DeflowError, type ErrorCode } from '../common/index.js';

/** Stable codes of workflow problems; callers branch on these, never on message text. */
export const WORKFLOW_CODES = {
  /** The workflow (or an inputs file) cannot be read. */
  file: 'E_WORKFLOW_FILE',
  /** The file is larger than the cap checked before parsing. */
  tooLarge: 'E_WORKFLOW_TOO_LARGE',
  /** YAML syntax, duplicate keys, alias bombs, unsupported tags. */
  yaml: 'E_WORKFLOW_YAML',
  /** The JSON Schema (shape, types, enums, ranges). */
  schema: 'E_WORKFLOW_SCHEMA',
  /** A step id that does not exist (needs, for_each, steps.<id>). */
  ref: 'E_WORKFLOW_REF',
  /** Steps that depend on each other in a loop. */
  cycle: 'E_WORKFLOW_CYCLE',
  /** An unknown task id. */
  task: 'E_WORKFLOW_TASK',
  /** An unknown field in `with`. */
  field: 'E_WORKFLOW_FIELD',
  /** A required field is missing, or fields that go together (exactly one of, requires) do not. */
  required: 'E_WORKFLOW_REQUIRED',
  /** An expression that does not parse or names an unknown context or property. */
  expression: 'E_WORKFLOW_EXPRESSION',
  /** A result kind that does not fit the field it flows into. */
  kind: 'E_WORKFLOW_KIND',
  /** An unknown model, or one that does not serve the task. */
  model: 'E_WORKFLOW_MODEL',
  /** A value outside the field's range or the chosen model's `info.limits`. */
  limit: 'E_WORKFLOW_LIMIT',
  /** A for_each source that cannot be read or does not fan out. */
  forEach: 'E_WORKFLOW_FOR_EACH',
  /** An input file of the wrong format or size, or missing. */
  inputFile: 'E_WORKFLOW_INPUT_FILE',
  /** A `save` path that escapes the output folder. */
  savePath: 'E_WORKFLOW_SAVE_PATH',
  /** A workflow input (`--input`, `--inputs`) that is unknown, missing or of the wrong type. */
  input: 'E_WORKFLOW_INPUT',
  /** Thrown by library calls that need a valid workflow; carries the list of problems. */
  invalid: 'E_WORKFLOW_INVALID',
} as const;

export type WorkflowCode = (typeof WORKFLOW_CODES)[keyof typeof WORKFLOW_CODES];

/** Where a problem is: a file, a 1-based line and column, and the dotted path inside the document. */
export interface WorkflowLocation {
  readonly file: string;
  readonly line: number;
  readonly col: number;
  /** `steps.speak.with.voice`; `workflow` for the document itself. */
  readonly path: string;
}

/** The JSON form of a problem, as `deflow validate --json` prints it. */
export interface WorkflowProblemJson extends WorkflowLocation {
  readonly message: string;
  readonly code: ErrorCode;
  /** The item the problem is about, for a problem of one item of a fan-out (`--keep-going` skips it). */
  readonly item?: ProblemItem;
}

/** The item of a fanned-out step a problem belongs to: the rest of the workflow is fine without it. */
export interface ProblemItem {
  readonly step: string;
  /** Item index, from 0. */
  readonly index: number;
}

/**
 * One problem in a workflow, at a position. `message` is the whole printable line
 * (`podcast.yaml:14:11: steps.speak.with.voice: expected string, got number`); `reason` is the
 * part after the path.
 */
export class WorkflowError extends DeflowError {
  override name = 'WorkflowError';
  readonly location: WorkflowLocation;
  readonly reason: string;
  /** Set when the problem is one item's (its input file, a value read from it). */
  readonly item: ProblemItem | undefined;

  constructor(code: WorkflowCode, location: WorkflowLocation, reason: string, options: { cause?: unknown; item?: ProblemItem | undefined } = {}) {
    const { item, ...rest } = options;
    super(code, formatProblem(location, reason), { ...rest, details: { ...location, ...(item === undefined ? {} : { item }) } });
    this.location = location;
    this.reason = reason;
    this.item = item;
  }

  toJSON(): WorkflowProblemJson {
    return { ...this.location, message: this.reason, code: this.code, ...(this.item === undefined ? {} : { item: this.item }) };
  }
}

/** Thrown where a valid workflow is required (expandGraph, the engine); lists every problem. */
export class WorkflowInvalidError extends DeflowError {
  override name = 'WorkflowInvalidError';
  readonly errors: readonly WorkflowError[];

  constructor(errors: readonly WorkflowError[]) {
    const first = errors[0];
    const more = errors.length > 1 ? ` (and ${errors.length - 1} more)` : '';
    super(WORKFLOW_CODES.invalid, first ? `${first.message}${more}` : 'invalid workflow', {
      details: { errors: errors.map((e) => e.toJSON()) },
    });
    this.errors = errors;
  }
}

/** `file:line:col: path: reason`. */
export function formatProblem(location: WorkflowLocation, reason: string): string {
  return `${location.file}:${location.line}:${location.col}: ${location.path}: ${reason}`;
}
