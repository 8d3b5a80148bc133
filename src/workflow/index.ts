/**
 * The workflow layer: load, validate and expand YAML workflows. The engine needs only what is
 * exported here; everything else under src/workflow is internal.
 */
export type { EdgeKind, EdgeOrigin, StepEdge } from './graph/analyze-steps.js';
export { expandGraph, type ExpandGraphOptions, resolveOutputDir } from './graph/expand-graph.js';
export { type GraphStep, itemKeyOf, JobGraph, type NodeRef, type ResultLookup, type StepResult } from './graph/job-graph.js';
export { evaluateCondition, gatherResults, type PreparedScope, prepareScope, renderTemplate, renderValue } from './expressions/evaluate.js';
export type { ExpressionScope } from './expressions/expression-scope.js';
export { STEP_RESULT_FIELDS } from './expressions/known-properties.js';
export { contextsOf, staticValue } from './expressions/static-value.js';
export { formatAnnotations } from './format/github-annotations.js';
export { formatPlan } from './format/format-plan.js';
export { formatErrors, formatWarnings } from './format/format-problems.js';
export { referencedStepId, stepReferences } from './graph/step-references.js';
export { type GivenInputs, resolveInputs } from './inputs/resolve-inputs.js';
export { parseInputPair, readGivenInputs, type ReadGivenInputsOptions } from './inputs/read-given-inputs.js';
export type { ItemContext, ItemList } from './items/item-list.js';
export { createModelSource, loadModelSource, type LoadModelSourceOptions, type ModelSource, type ModelSourceKind } from './models/model-source.js';
export { checkFieldValue, checkModelLimits, coerceFieldValue } from './render/check-field-value.js';
export { type FilledValue, fillDefaults } from './render/fill-defaults.js';
export { itemKey, type KnownRequest, renderKnownFields, renderRequest, type RenderedRequest, renderSavePath } from './graph/render-request.js';
export { resolveSavePath, savePathProblem, UnsafeSavePathError } from './render/resolve-save-path.js';
export { buildWorkflowSchema } from './schema/build-workflow-schema.js';
export type * from './types.js';
export { buildPlan, type Plan, type PlanStep } from './validate/build-plan.js';
export { type LoadedWorkflow, loadWorkflow, type LoadWorkflowOptions } from './validate/load-workflow.js';
export { type ValidateOptions, type ValidationResult, validateWorkflow } from './validate/validate-workflow.js';
export { type ProblemItem, WORKFLOW_CODES, type WorkflowCode, WorkflowError, WorkflowInvalidError, type WorkflowLocation, type WorkflowProblemJson } from './workflow-error.js';
