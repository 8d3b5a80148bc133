import { Evaluator } from '@actions/expressions';
import { describe, expect, it } from 'vitest';
import { compileTemplate } from '../../src/workflow/expressions/compile-template.js';
import { PreparedScope, renderTemplate } from '../../src/workflow/expressions/evaluate.js';
import { fromExpressionData } from '../../src/workflow/expressions/expression-data.js';
import { EVALUATE, readPath } from '../../src/workflow/expressions/read-path.js';
import type { CompiledExpression } from '../../src/workflow/types.js';
import { YamlLocator } from '../../src/workflow/yaml/yaml-locator.js';

const locator = new YamlLocator('t.yaml', '');
const expression = (text: string): CompiledExpression => compileTemplate(`\${{ ${text} }}`, ['x'], locator).parts[0] as CompiledExpression;

const scope = {
  inputs: { voice: 'af_bella', size: 512, on: true, big: 10n },
  item: { value: 'Line 1', Value: 'shadowed', Title: 'first', title: 'second', nested: { deep: { text: 'hi' } }, list: ['a', 'b'], when: new Date(0), none: null },
  steps: { t: { text: 'hello', cost: 0.25 } },
  run: { id: 'r1', started_at: '2025-01-01T00:00:00Z' },
};

/** What GitHub's evaluator answers, every context converted up front (the slow path). */
function evaluator(text: string): unknown {
  const dictionary = new PreparedScope(scope).data();
  return fromExpressionData(new Evaluator(expression(text).ast!, dictionary).evaluate());
}

describe('reading a plain property path without the evaluator', () => {
  it.each([
    'item.value',
    'ITEM.VALUE',
    "item['value']",
    'item.title',
    'item.TITLE',
    'item.nested.deep.text',
    'item.nested.missing.text',
    'item.missing',
    'item.none',
    'item.value.length',
    'inputs.size',
    'inputs.on',
    'inputs.big',
    'steps.t.text',
    'steps.absent.text',
    'run.id',
  ])('%s reads what the evaluator reads', (text) => {
    const read = readPath(expression(text).ast!, new PreparedScope(scope));
    const expected = evaluator(text);
    if (read === EVALUATE) expect(text).toBe('item.value.length');
    else expect(read).toEqual(expected);
  });

  it('matches names case-insensitively, the first key in insertion order winning as in a dictionary', () => {
    // `Title` comes before `title`; `value` before `Value`.
    expect(readPath(expression('item.title').ast!, new PreparedScope(scope))).toBe('first');
    expect(readPath(expression('item.Value').ast!, new PreparedScope(scope))).toBe('Line 1');
    expect(evaluator('item.title')).toBe('first');
  });

  it.each(['item.list', 'item.when', 'item.nested', 'item.list[0]', 'item[inputs.voice]', "format('{0}', item.value)", 'item.value == inputs.voice'])(
    'leaves %s to the evaluator',
    (text) => {
      expect(readPath(expression(text).ast!, new PreparedScope(scope))).toBe(EVALUATE);
    },
  );

  it('renders templates the same whichever path a part takes', () => {
    for (const text of ['${{ item.value }}', '${{ item.list }}', 'at ${{ item.when }}: ${{ item.TITLE }} ${{ item.nested }}', '${{ inputs.big }}']) {
      const template = compileTemplate(text, ['x'], locator);
      const slow = template.parts.map((part) => (typeof part === 'string' ? part : fromExpressionData(new Evaluator(part.ast!, new PreparedScope(scope).data()).evaluate())));
      const rendered = renderTemplate(template, new PreparedScope(scope));
      if (template.single) expect(rendered).toEqual(slow[0]);
      else expect(rendered).toBe(slow.map((v) => (typeof v === 'string' ? v : v === null ? '' : typeof v === 'object' ? JSON.stringify(v) : String(v))).join(''));
    }
  });

  it('converts nothing to evaluator data when every expression is a plain path', () => {
    const item = { value: 'x' };
    const prepared = new PreparedScope({ item, inputs: { a: 1 } });
    expect(renderTemplate(compileTemplate('${{ item.value }}-${{ inputs.a }}', ['x'], locator), prepared)).toBe('x-1');
    // A conversion would have cached the dictionary: none was made.
    expect((prepared as unknown as { dictionary: unknown }).dictionary).toBeUndefined();
  });
});
