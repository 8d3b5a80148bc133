import type { Expr } from '@actions/expressions';
import type { TaskSpec } from '../service/index.js';
import type { DocPath } from './format-path.js';
import type { WorkflowError, WorkflowLocation } from './workflow-error.js';
import type { YamlLocator } from './yaml/yaml-locator.js';

/** The contexts an expression may name. */
export type ContextName = 'inputs' | 'item' | 'steps' | 'run';

/** One use of a context in an expression: `steps.transcribe.text` is `steps` + `['transcribe', 'text']`. */
export interface Reference {
  readonly context: ContextName;
  /** Property names after the context, as written (compare case-insensitively, as Actions does); `null` marks a computed index (`[x]`), `'*'` a filter. */
  readonly path: readonly (string | null)[];
  /** Where the context name and each property stand in the file (same length as `path` + 1). */
  readonly locations: readonly WorkflowLocation[];
  /** True when this reference is the whole expression (its value flows into the field unchanged). */
  readonly bare: boolean;
}

/** A parsed `${{ … }}` expression. Never `eval`ed: it is evaluated by `@actions/expressions`. */
export interface CompiledExpression {
  /** The text between `${{` and `}}`. */
  readonly text: string;
  /** The syntax tree; undefined when the text did not parse (see `error`). */
  readonly ast: Expr | undefined;
  readonly references: readonly Reference[];
  /** Where the expression text starts. */
  readonly location: WorkflowLocation;
  readonly error?: WorkflowError;
}

/** A string that may hold expressions: literal parts and expressions in order. */
export interface Template {
  readonly source: string;
  readonly parts: readonly (string | CompiledExpression)[];
  /** The whole string is one expression: its value keeps its type (number, list, object). */
  readonly single: boolean;
  readonly path: DocPath;
}

/** A `with` value as written: literals, templates, and lists and maps of them. */
export type ValueTemplate =
  | { readonly kind: 'literal'; readonly value: unknown; readonly path: DocPath }
  | { readonly kind: 'template'; readonly template: Template; readonly path: DocPath }
  | { readonly kind: 'array'; readonly items: readonly ValueTemplate[]; readonly path: DocPath }
  | { readonly kind: 'object'; readonly entries: readonly (readonly [string, ValueTemplate])[]; readonly path: DocPath };

/** The type of a workflow input. */
export type InputType = 'string' | 'number' | 'integer' | 'boolean' | 'choice';

/** A declared workflow input. */
export interface InputDef {
  readonly name: string;
  readonly type: InputType;
  readonly description?: string;
  readonly default?: unknown;
  /** True unless the input has a default or says `required: false`. */
  readonly required: boolean;
  /** Allowed values of a `choice` input. */
  readonly options?: readonly unknown[];
  readonly path: DocPath;
}

/** Where a step's items come from. */
export type ForEachDef =
  | { readonly kind: 'glob'; readonly patterns: readonly Template[]; readonly path: DocPath }
  | { readonly kind: 'items'; readonly values: readonly unknown[]; readonly path: DocPath }
  | { readonly kind: 'file'; readonly file: Template; readonly path: DocPath }
  | { readonly kind: 'matrix'; readonly axes: readonly (readonly [string, readonly unknown[]])[]; readonly path: DocPath }
  | { readonly kind: 'step'; readonly step: string; readonly path: DocPath };

/** A step's `if`: a constant or an expression. */
export type Condition =
  | { readonly kind: 'literal'; readonly value: boolean; readonly path: DocPath }
  | { readonly kind: 'expression'; readonly expression: CompiledExpression; readonly path: DocPath };

/** Settings a step takes from `defaults` unless it sets its own. */
export interface StepSettings {
  /** Jobs of this step in flight at once; undefined lets the engine decide. */
  readonly concurrency?: number;
  /** Resubmissions of a job that failed with `retryable: true`. @default 0 */
  readonly retries: number;
  /** Longest a job may take, in seconds; undefined means no limit. */
  readonly timeoutSeconds?: number;
  /** Reuse results of identical earlier jobs. @default true */
  readonly cache: boolean;
  /** Which surface requests go to. @default 'v2' */
  readonly apiVersion: 'v1' | 'v2';
}

/** A step as loaded. */
export interface StepDef extends StepSettings {
  readonly id: string;
  readonly path: DocPath;
  readonly task: string;
  /** The task from the catalogue; undefined for an unknown task id (reported by a rule). */
  readonly spec: TaskSpec | undefined;
  /** `with` fields in document order. */
  readonly with: ReadonlyMap<string, ValueTemplate>;
  readonly forEach?: ForEachDef;
  readonly needs: readonly { readonly id: string; readonly path: DocPath }[];
  readonly if?: Condition;
  readonly save?: Template;
  /**
   * For a step that gathers a fanned-out step: `all` (default) runs only when every item of
   * it succeeded; `partial` runs over the items that did (`steps.<id>.missing` names the rest).
   */
  readonly gather: 'all' | 'partial';
}

/** When a run-end notification is sent. */
export type NotifyWhen = 'failure' | 'deferred' | 'always';

/** One entry of `notify:`: the URL (or the environment variable that holds it) and when. */
export interface NotifyDef {
  readonly url?: string;
  readonly urlEnv?: string;
  /** @default ['failure', 'deferred'] */
  readonly on: readonly NotifyWhen[];
  readonly path: DocPath;
}

/** A workflow as loaded: typed, with positions kept for errors. */
export interface Workflow {
  /** Absolute path of the workflow file. */
  readonly file: string;
  /** The file as errors print it. */
  readonly displayFile: string;
  /** Folder of the workflow file; relative paths resolve against it. */
  readonly dir: string;
  readonly version: 1;
  readonly name: string;
  readonly description?: string;
  readonly inputs: ReadonlyMap<string, InputDef>;
  readonly defaults: StepSettings;
  /**
   * `defaults.keep_going`: items whose inputs fail the load-time checks are left out of the
   * run (each reported), instead of refusing the whole workflow. @default false
   */
  readonly keepGoing: boolean;
  readonly budget: { readonly maxCost?: number };
  /** `notify:`: webhooks told when a run ends (empty when none). */
  readonly notify: readonly NotifyDef[];
  /** Output folder template (relative to `dir`; may use `inputs`). @default 'out' */
  readonly output: Template;
  /** Steps in document order. */
  readonly steps: readonly StepDef[];
  readonly stepById: ReadonlyMap<string, StepDef>;
  readonly locator: YamlLocator;
}
