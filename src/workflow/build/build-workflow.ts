import { basename, dirname, extname, resolve } from 'node:path';
import { compileTemplate } from '../expressions/compile-template.js';
import type { InputDef, InputType, NotifyDef, NotifyWhen, StepDef, Workflow } from '../types.js';
import type { YamlLocator } from '../yaml/yaml-locator.js';
import { buildStep } from './build-step.js';
import { entriesOf, own } from './plain.js';
import { BASE_SETTINGS, readSettings } from './read-settings.js';

const INPUT_TYPES: readonly InputType[] = ['string', 'number', 'integer', 'boolean', 'choice'];

/** Default output folder, relative to the workflow file. */
export const DEFAULT_OUTPUT = 'out';

/**
 * Builds the typed workflow from a parsed document. Lenient on purpose: the schema check runs
 * on the same document and reports shape errors, so this keeps what is usable and lets the
 * semantic rules report everything else in the same pass.
 */
export function buildWorkflow(document: unknown, file: string, locator: YamlLocator): Workflow {
  const absolute = resolve(file);
  const name = own(document, 'name');
  const description = own(document, 'description');
  const defaults = readSettings(own(document, 'defaults'), BASE_SETTINGS);
  const output = own(document, 'output');
  const maxCost = own(own(document, 'budget'), 'max_cost');
  const steps: StepDef[] = entriesOf(own(document, 'steps')).map(([id, raw]) => buildStep(id, raw, defaults, locator));
  const workflow: { -readonly [K in keyof Workflow]: Workflow[K] } = {
    file: absolute,
    displayFile: locator.file,
    dir: dirname(absolute),
    version: 1,
    name: typeof name === 'string' && name !== '' ? name : basename(absolute, extname(absolute)),
    inputs: readInputs(own(document, 'inputs')),
    defaults,
    keepGoing: own(own(document, 'defaults'), 'keep_going') === true,
    budget: typeof maxCost === 'number' ? { maxCost } : {},
    notify: readNotify(own(document, 'notify')),
    output: compileTemplate(typeof output === 'string' && output !== '' ? output : DEFAULT_OUTPUT, ['output'], locator),
    steps,
    stepById: new Map(steps.map((s) => [s.id, s])),
    locator,
  };
  if (typeof description === 'string') workflow.description = description;
  return workflow;
}

const NOTIFY_WHEN: readonly NotifyWhen[] = ['failure', 'deferred', 'always'];

/** `notify:` entries as far as they are usable (the schema reports the rest). */
function readNotify(value: unknown): NotifyDef[] {
  if (!Array.isArray(value)) return [];
  return value.flatMap((raw: unknown, index): NotifyDef[] => {
    const url = own(raw, 'url');
    const urlEnv = own(raw, 'url_env');
    const on = own(raw, 'on');
    const when = Array.isArray(on) ? on.filter((w): w is NotifyWhen => NOTIFY_WHEN.includes(w as NotifyWhen)) : [];
    const entry = {
      ...(typeof url === 'string' ? { url } : {}),
      ...(typeof urlEnv === 'string' ? { urlEnv } : {}),
      on: when.length > 0 ? when : (['failure', 'deferred'] as const),
      path: ['notify', index],
    };
    return entry.url === undefined && entry.urlEnv === undefined ? [] : [entry];
  });
}

function readInputs(value: unknown): Map<string, InputDef> {
  const inputs = new Map<string, InputDef>();
  for (const [name, raw] of entriesOf(value)) {
    const type = own(raw, 'type');
    const description = own(raw, 'description');
    const fallback = own(raw, 'default');
    const required = own(raw, 'required');
    const options = own(raw, 'options');
    const input: { -readonly [K in keyof InputDef]: InputDef[K] } = {
      name,
      type: INPUT_TYPES.includes(type as InputType) ? (type as InputType) : 'string',
      required: typeof required === 'boolean' ? required : fallback === undefined,
      path: ['inputs', name],
    };
    if (typeof description === 'string') input.description = description;
    if (fallback !== undefined && fallback !== null) input.default = fallback;
    if (Array.isArray(options)) input.options = options;
    inputs.set(name, input);
  }
  return inputs;
}
