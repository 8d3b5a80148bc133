import type { ModelSource } from '../models/model-source.js';
import type { StepAnalysis } from '../graph/analyze-steps.js';
import type { ItemList } from '../items/item-list.js';
import type { ItemSourceResult } from '../items/resolve-item-source.js';
import type { Workflow } from '../types.js';
import type { WorkflowError } from '../workflow-error.js';

/** A required field left out and filled before the request is built. */
export interface FilledField {
  readonly step: string;
  readonly field: string;
  readonly value: string | number | boolean;
  /** `model Kokoro info.defaults.lang`, or `field default`. */
  readonly from: string;
}

/** What every rule reads, and where it reports. */
export interface RuleContext {
  readonly workflow: Workflow;
  /** Resolved input values (defaults filled). */
  readonly inputs: Readonly<Record<string, unknown>>;
  readonly models: ModelSource;
  readonly analysis: StepAnalysis;
  /** Results of the root sources (glob, items, file, matrix), by step id. */
  readonly sources: ReadonlyMap<string, ItemSourceResult>;
  /** The items a step fans out over (through its chain); undefined when it does not fan out or its source failed. */
  readonly itemsOf: (stepId: string) => ItemList | undefined;
  /** Fields filled from defaults, recorded by the required-fields rule for the plan. */
  readonly fills: FilledField[];
  readonly report: (error: WorkflowError) => void;
  readonly warn: (warning: WorkflowError) => void;
}

/** A named semantic check. Each lives in its own file and is tested alone. */
export interface Rule {
  readonly name: string;
  check(context: RuleContext): void | Promise<void>;
}
