import { expressionContexts } from './expression-contexts.js';
import { expressionsParse } from './expressions-parse.js';
import { fieldCombinations } from './field-combinations.js';
import { fieldsKnown } from './fields-known.js';
import { forEachSources } from './for-each-sources.js';
import { gatherMode } from './gather-mode.js';
import { inputFiles } from './input-files.js';
import { modelServesTask } from './model-serves-task.js';
import { noCycles } from './no-cycles.js';
import { requiredFields } from './required-fields.js';
import { resultKindsFit } from './result-kinds-fit.js';
import type { Rule } from './rule-context.js';
import { savePathsInside } from './save-paths-inside.js';
import { sourceLinks } from './source-links.js';
import { stepsExist } from './steps-exist.js';
import { tasksExist } from './tasks-exist.js';
import { withinModelLimits } from './within-model-limits.js';

export type { FilledField, Rule, RuleContext } from './rule-context.js';

/** The semantic rules, in the order they run (cheap structural checks first, file sniffing last). */
export const RULES: readonly Rule[] = [
  stepsExist,
  noCycles,
  tasksExist,
  fieldsKnown,
  expressionsParse,
  expressionContexts,
  forEachSources,
  gatherMode,
  requiredFields,
  fieldCombinations,
  resultKindsFit,
  modelServesTask,
  withinModelLimits,
  sourceLinks,
  savePathsInside,
  inputFiles,
];
