import { describe, expect, it } from 'vitest';
import { compileTemplate } from '../../src/workflow/expressions/compile-template.js';
import { evaluateCondition, gatherResults, renderTemplate, renderValue } from '../../src/workflow/expressions/evaluate.js';
import { findTemplates } from '../../src/workflow/expressions/find-templates.js';
import { compileValue } from '../../src/workflow/build/compile-value.js';
import { YamlLocator } from '../../src/workflow/yaml/yaml-locator.js';

const locator = new YamlLocator('t.yaml', '');
const template = (text: string) => compileTemplate(text, ['x'], locator);

describe('finding ${{ }} in strings', () => {
  it('splits text and expressions with their offsets', () => {
    expect(findTemplates('a ${{ b }} c')).toEqual([
      { kind: 'text', text: 'a ', offset: 0 },
      { kind: 'expression', text: ' b ', offset: 5, occurrence: 0 },
      { kind: 'text', text: ' c', offset: 10 },
    ]);
  });

  it("does not close an expression on }} inside a quoted string ('' escapes a quote)", () => {
    expect(findTemplates("${{ format('}} it''s', 1) }}")).toEqual([{ kind: 'expression', text: " format('}} it''s', 1) ", offset: 3, occurrence: 0 }]);
  });
});

describe('evaluating expressions', () => {
  const scope = {
    inputs: { voice: 'af_bella', size: 512 },
    item: { index: 2, path: 'a/b.mp3', stem: 'b' },
    steps: { t: { text: 'hello', cost: 0.25 } },
    run: { id: 'r1', started_at: '2025-01-01T00:00:00Z' },
  };

  it('keeps the type of a value that is one expression', () => {
    expect(renderTemplate(template('${{ inputs.size }}'), scope)).toBe(512);
    expect(renderTemplate(template('${{ steps.t.cost > 0.1 }}'), scope)).toBe(true);
  });

  it('joins text around expressions, with null as empty and objects as JSON', () => {
    expect(renderTemplate(template('out/${{ item.stem }}-${{ item.index }}.txt'), scope)).toBe('out/b-2.txt');
    expect(renderTemplate(template('[${{ inputs.missing }}]'), scope)).toBe('[]');
    expect(renderTemplate(template('${{ steps.t }} and more'), scope)).toBe('{"text":"hello","cost":0.25} and more');
  });

  it("uses GitHub's functions and case-insensitive names", () => {
    expect(renderTemplate(template("${{ format('{0} by {1}', STEPS.T.TEXT, inputs.Voice) }}"), scope)).toBe('hello by af_bella');
    expect(renderTemplate(template("${{ startsWith(item.path, 'a/') && contains(run.id, 'r') }}"), scope)).toBe(true);
  });

  it('renders nested values', () => {
    const value = compileValue({ list: ['${{ item.stem }}', 1], fixed: 'x' }, ['with'], locator);
    expect(renderValue(value, scope)).toEqual({ list: ['b', 1], fixed: 'x' });
  });

  it('evaluates conditions with Actions truthiness', () => {
    const condition = (text: string) => ({ kind: 'expression' as const, expression: template(`\${{ ${text} }}`).parts[0] as never, path: [] });
    expect(evaluateCondition(condition("steps.t.text == 'hello'"), scope)).toBe(true);
    expect(evaluateCondition(condition("''"), scope)).toBe(false);
    expect(evaluateCondition(condition('0'), scope)).toBe(false);
    expect(evaluateCondition(undefined, scope)).toBe(true);
  });

  it('gathers results key by key, in item order', () => {
    expect(gatherResults([{ text: 'a', cost: 1 }, { text: 'b' }])).toEqual({
      request_id: [null, null],
      result_url: [null, null],
      text: ['a', 'b'],
      json: [null, null],
      path: [null, null],
      cost: [1, null],
    });
  });
});
