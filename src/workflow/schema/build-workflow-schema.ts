import { TASKS } from '../../service/index.js';
import { type JsonSchema, taskWithSchema } from './field-schema.js';

/** Step ids and input names: a letter or `_`, then letters, digits, `_` or `-` (as in Actions). */
export const IDENTIFIER_PATTERN = '^[A-Za-z_][A-Za-z0-9_-]*$';
/** `30` (seconds) or `"90s"`, `"10m"`, `"2h"`, `"500ms"`. */
export const DURATION_PATTERN = '^[0-9]+(\\.[0-9]+)?(ms|s|m|h)$';
/** Most steps a workflow may have (checked by the schema, so a huge file fails fast). */
export const MAX_STEPS = 1000;

const ref = (name: string): JsonSchema => ({ $ref: `#/definitions/${name}` });

/**
 * The workflow JSON Schema (draft-07), generated from the task catalogue: the loader compiles
 * it once and `schemas/workflow.schema.json` is this object, written for editors.
 */
export function buildWorkflowSchema(): JsonSchema {
  const definitions: Record<string, JsonSchema> = {
    identifier: { type: 'string', pattern: IDENTIFIER_PATTERN },
    expression: { type: 'string', pattern: '\\$\\{\\{', description: 'A value computed when the job is built: "${{ inputs.voice }}".' },
    duration: {
      anyOf: [{ type: 'number', exclusiveMinimum: 0 }, { type: 'string', pattern: DURATION_PATTERN }],
      description: 'Seconds, or a number with a unit: "500ms", "90s", "10m", "2h".',
    },
    input: inputSchema(),
    settings: settingsSchema(),
    defaults: defaultsSchema(),
    for_each: forEachSchema(),
    step: stepSchema(),
  };
  for (const task of TASKS) definitions[`with.${task.id}`] = taskWithSchema(task);
  return {
    $schema: 'http://json-schema.org/draft-07/schema#',
    title: 'deflow workflow (version 1)',
    description: 'A deflow workflow: steps of AI inference jobs, fanned out over items. Generated from the task catalogue.',
    type: 'object',
    additionalProperties: false,
    required: ['version', 'steps'],
    properties: {
      version: { const: 1, description: 'Language version; always 1.' },
      name: { type: 'string', minLength: 1, description: 'Display name. @default the file name without extension' },
      description: { type: 'string' },
      inputs: {
        type: 'object',
        description: 'Typed inputs, set with --input key=value or --inputs file.yaml; read as ${{ inputs.<name> }}.',
        propertyNames: ref('identifier'),
        additionalProperties: ref('input'),
      },
      defaults: { ...ref('defaults'), description: 'Settings every step takes unless it sets its own, and how the run treats bad items.' },
      budget: {
        type: 'object',
        additionalProperties: false,
        properties: { max_cost: { type: 'number', minimum: 0, description: 'Refuse to run when the quote is above this.' } },
      },
      output: { type: 'string', minLength: 1, description: 'Output folder, relative to the workflow file. @default "out"' },
      notify: {
        type: 'array',
        minItems: 1,
        maxItems: 20,
        description:
          "Who hears when a run ends: each entry is POSTed a JSON summary (schemas/notification.schema.json) whose `text` field Slack and Mattermost incoming webhooks show as is. A notification that fails is reported and never changes the run's exit code.",
        items: {
          type: 'object',
          additionalProperties: false,
          properties: {
            url: { type: 'string', pattern: '^https?://', description: 'The webhook URL (http or https).' },
            url_env: { type: 'string', pattern: '^[A-Za-z_][A-Za-z0-9_]*$', description: 'An environment variable that holds the URL (keeps a secret URL out of the file).' },
            on: {
              type: 'array',
              minItems: 1,
              uniqueItems: true,
              items: { enum: ['failure', 'deferred', 'always'] },
              description: 'When to send: `failure` (the run did not end with exit 0, other than only deferred by a daily limit), `deferred` (a daily limit left items for a later run), `always`. @default ["failure", "deferred"]',
            },
          },
          oneOf: [
            { required: ['url'], properties: { url: { type: 'string' } } },
            { required: ['url_env'], properties: { url_env: { type: 'string' } } },
          ],
        },
      },
      steps: {
        type: 'object',
        description: 'Steps keyed by id; order comes from dependencies, not from the file.',
        minProperties: 1,
        maxProperties: MAX_STEPS,
        propertyNames: ref('identifier'),
        additionalProperties: ref('step'),
      },
    },
    definitions,
  };
}

function inputSchema(): JsonSchema {
  return {
    type: 'object',
    additionalProperties: false,
    properties: {
      type: { enum: ['string', 'number', 'integer', 'boolean', 'choice'], description: '@default "string"' },
      description: { type: 'string' },
      default: { type: ['string', 'number', 'boolean'] },
      required: { type: 'boolean', description: '@default true when there is no default' },
      options: { type: 'array', minItems: 1, items: { type: ['string', 'number', 'boolean'] }, description: 'Allowed values of a choice input.' },
    },
  };
}

function settingsSchema(): JsonSchema {
  return {
    type: 'object',
    additionalProperties: false,
    properties: {
      concurrency: { type: 'integer', minimum: 1, maximum: 10_000, description: 'Jobs in flight at once.' },
      retries: { type: 'integer', minimum: 0, maximum: 10, description: 'Resubmissions of a job that failed with retryable: true. @default 0' },
      timeout: ref('duration'),
      cache: { type: 'boolean', description: 'Reuse results of identical earlier jobs. @default true' },
      api_version: { enum: ['v1', 'v2'], description: 'Which API surface requests go to. @default "v2"' },
    },
  };
}

function defaultsSchema(): JsonSchema {
  const settings = settingsSchema();
  return {
    ...settings,
    properties: {
      ...(settings.properties as Record<string, JsonSchema>),
      keep_going: {
        type: 'boolean',
        description:
          'Leave out items whose inputs fail the load-time checks (each reported, with its reason) and run the rest, instead of refusing the workflow; as --keep-going. The run exits 1 when any item was left out or failed. @default false',
      },
    },
  };
}

function forEachSchema(): JsonSchema {
  // One object schema instead of oneOf keeps ajv's errors to the point: keywords for strings
  // (pattern) and objects (properties) each apply to their own type only.
  return {
    type: ['string', 'object'],
    description: 'Fan out: the id of an earlier fanned-out step (a per-item chain), or one of glob, items, file, matrix.',
    pattern: IDENTIFIER_PATTERN,
    additionalProperties: false,
    minProperties: 1,
    maxProperties: 1,
    properties: {
      glob: { type: ['string', 'array'], minLength: 1, minItems: 1, items: { type: 'string', minLength: 1 }, description: 'fast-glob pattern(s), relative to the workflow file; matches are sorted.' },
      items: { type: 'array', description: 'Strings or objects, one item each.' },
      file: { type: 'string', minLength: 1, description: 'A .txt (one item per line), .jsonl (one per record) or .csv (one per row) file.' },
      matrix: {
        type: 'object',
        minProperties: 1,
        propertyNames: ref('identifier'),
        additionalProperties: { type: 'array', minItems: 1 },
        description: 'Cross product of the lists; each item has one value per key.',
      },
    },
  };
}

function stepSchema(): JsonSchema {
  const settings = settingsSchema().properties as Record<string, JsonSchema>;
  return {
    type: 'object',
    additionalProperties: false,
    required: ['task'],
    properties: {
      task: { enum: TASKS.map((t) => t.id), description: 'What the step does (one task per v2 endpoint).' },
      with: { type: 'object', description: 'Request fields, named as the service v2 fields.' },
      for_each: ref('for_each'),
      needs: {
        type: ['string', 'array'],
        pattern: IDENTIFIER_PATTERN,
        items: ref('identifier'),
        uniqueItems: true,
        description: 'Steps to wait for (a reference to steps.<id> already implies it).',
      },
      if: { type: ['string', 'boolean'], description: 'Run an item only when this expression is true.' },
      save: { type: 'string', minLength: 1, description: 'Where to write the result, under the output folder.' },
      gather: {
        enum: ['all', 'partial'],
        description:
          'For a step that gathers a fanned-out step: "all" runs it only when every item succeeded; "partial" runs it over the items that did (steps.<id>.missing lists the others). @default "all"',
      },
      ...settings,
    },
    allOf: TASKS.map((task) => ({
      if: { properties: { task: { const: task.id } }, required: ['task'] },
      then: { properties: { with: ref(`with.${task.id}`) } },
    })),
  };
}

