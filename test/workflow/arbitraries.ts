import fc from 'fast-check';
import { stringify } from 'yaml';
import { TASKS } from '../../src/service/tasks.js';

const STEP_IDS = ['a', 'b', 'c', 'transcribe', 'speak'];
const expressionText = fc.oneof(
  fc.constantFrom('item.path', 'item.stem', 'item.nope', 'inputs.voice', 'inputs.missing', 'run.id', 'steps', 'steps.*.text', '1 ==', "format('{0}', 1)", 'fromJSON(x)', '', "'}}'", 'a $ b', 'env.X'),
  fc.constantFrom(...STEP_IDS).chain((id) => fc.constantFrom(`steps.${id}.text`, `steps.${id}.result_url`, `steps.${id}.json`, `steps.${id}.path`, `steps.${id}.bogus`, `steps['${id}'].cost`)),
  fc.string({ maxLength: 12 }),
);
const expression = expressionText.map((text) => `\${{ ${text} }}`);
const scalar = fc.oneof(fc.string({ maxLength: 10 }), fc.integer({ min: -10, max: 100_000 }), fc.double({ noNaN: false }), fc.boolean(), fc.constant(null), expression);
const value = fc.oneof({ weight: 4, arbitrary: scalar }, { weight: 1, arbitrary: fc.array(scalar, { maxLength: 3 }) }, { weight: 1, arbitrary: fc.dictionary(fc.string({ maxLength: 5 }), scalar, { maxKeys: 2 }) });

const task = fc.oneof({ weight: 6, arbitrary: fc.constantFrom(...TASKS) }, { weight: 1, arbitrary: fc.constant(undefined) });

const step = task.chain((spec) =>
  fc.record(
    {
      task: spec ? fc.constant(spec.id) : fc.oneof(fc.string({ maxLength: 16 }), fc.integer()),
      with: fc.dictionary(spec ? fc.oneof(fc.constantFrom(...spec.fields.map((f) => f.name)), fc.string({ maxLength: 8 })) : fc.string({ maxLength: 8 }), value, { maxKeys: 6 }),
      for_each: fc.oneof(
        fc.constantFrom(...STEP_IDS),
        fc.record({ items: fc.array(fc.oneof(fc.string({ maxLength: 6 }), fc.record({ path: fc.string({ maxLength: 6 }), n: fc.integer() })), { maxLength: 4 }) }),
        fc.record({ glob: fc.constantFrom('*.txt', '**/*', 'media/*.mp3', '${{ inputs.voice }}/*') }),
        fc.record({ file: fc.constantFrom('list.txt', 'list.csv', 'list.jsonl', 'nope.csv', 'wf.yaml') }),
        fc.record({ matrix: fc.dictionary(fc.constantFrom('x', 'y', 'z'), fc.array(scalar, { minLength: 1, maxLength: 3 }), { maxKeys: 2 }) }),
      ),
      needs: fc.oneof(fc.constantFrom(...STEP_IDS), fc.array(fc.constantFrom(...STEP_IDS), { maxLength: 2 })),
      if: fc.oneof(fc.boolean(), expression, expressionText),
      save: fc.oneof(fc.constantFrom('${{ item.stem }}.txt', '../x', '/abs', 'same.txt', '${{ item.index }}/${{ steps.a.text }}'), fc.string({ maxLength: 8 })),
      retries: fc.integer({ min: -1, max: 12 }),
      timeout: fc.constantFrom(30, '10m', 'soon', 0),
    },
    { requiredKeys: ['task'] },
  ),
);

/** Workflow-shaped documents with plausible and broken parts, to drive every rule. */
export const workflowDocument = fc.record(
  {
    version: fc.oneof({ weight: 5, arbitrary: fc.constant(1) }, { weight: 1, arbitrary: scalar }),
    name: fc.string({ maxLength: 8 }),
    inputs: fc.dictionary(fc.constantFrom('voice', 'n', 'bad id'), fc.record({ type: fc.constantFrom('string', 'number', 'integer', 'boolean', 'choice', 'x'), default: scalar }, { requiredKeys: [] }), { maxKeys: 2 }),
    output: fc.constantFrom('out', '${{ inputs.voice }}', '${{ run.id }}', ''),
    steps: fc.dictionary(fc.constantFrom(...STEP_IDS, 'Bad Id'), step, { maxKeys: 4 }),
  },
  { requiredKeys: ['version', 'steps'] },
);

/** A workflow document written as YAML. */
export const workflowText = workflowDocument.map((doc) => stringify(doc));

/** Mutations of a valid workflow's text: cut, insert, duplicate or swap lines, replace characters. */
export function mutatedText(source: string): fc.Arbitrary<string> {
  const lines = source.split('\n');
  const mutation = fc.oneof(
    fc.tuple(fc.nat(source.length), fc.nat(20)).map(([at, n]) => source.slice(0, at) + source.slice(at + n)),
    fc.tuple(fc.nat(source.length), fc.constantFrom(':', '-', '"', "'", '{', '}', '[', ']', '&a', '*a', '${{', '}}', '\t', '\n  ', ' # ', '!!binary ', '<<: ')).map(([at, s]) => source.slice(0, at) + s + source.slice(at)),
    fc.tuple(fc.nat(lines.length - 1), fc.nat(lines.length - 1)).map(([i, j]) => {
      const copy = [...lines];
      [copy[i], copy[j]] = [copy[j]!, copy[i]!];
      return copy.join('\n');
    }),
    fc.nat(lines.length - 1).map((i) => [...lines.slice(0, i + 1), lines[i]!, ...lines.slice(i + 1)].join('\n')),
  );
  return fc.array(mutation, { minLength: 1, maxLength: 3 }).map((variants) => variants[variants.length - 1]!);
}
