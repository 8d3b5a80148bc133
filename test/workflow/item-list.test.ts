import { describe, expect, it } from 'vitest';
import { createMatrixItems, createPathItems, createValueItems } from '../../src/workflow/items/item-list.js';

describe('item lists', () => {
  it('derive path fields from glob paths and string items', () => {
    expect(createPathItems(['a/b/c.tar.gz', 'top'], 'glob').at(0)).toEqual({ index: 0, value: 'a/b/c.tar.gz', path: 'a/b/c.tar.gz', name: 'c.tar.gz', stem: 'c.tar', ext: 'gz', dir: 'a/b' });
    expect(createValueItems(['top', '.env'], 'items').at(1)).toEqual({ index: 1, value: '.env', path: '.env', name: '.env', stem: '.env', ext: '', dir: '.' });
  });

  it('give object items their fields, with path fields from their own path', () => {
    const items = createValueItems([{ path: 'x/y.png', name: 'custom', index: 9 }, { prompt: 'p' }, 3], 'items');
    expect(items.at(0)).toEqual({ path: 'x/y.png', name: 'custom', stem: 'y', ext: 'png', dir: 'x', index: 0, value: { path: 'x/y.png', name: 'custom', index: 9 } });
    expect(items.at(1)).toMatchObject({ prompt: 'p', path: null, index: 1 });
    expect(items.at(2)).toEqual({ index: 2, value: 3, path: null, name: null, stem: null, ext: null, dir: null });
    expect([...items.fields]).toEqual(['path', 'name', 'index', 'prompt']);
  });

  it('keep a JSON "__proto__" key of an object item as a field, never as the prototype', () => {
    const context = createValueItems([JSON.parse('{"__proto__": {"polluted": 1}, "prompt": "p"}')], 'file').at(0);
    expect(Object.getPrototypeOf(context)).toBe(Object.prototype);
    expect(context).toMatchObject({ prompt: 'p', index: 0 });
    expect(Object.hasOwn(context, '__proto__')).toBe(true);
  });

  it('decode matrix combinations without storing them', () => {
    const matrix = createMatrixItems([
      ['a', [1, 2]],
      ['b', ['x', 'y', 'z']],
    ]);
    expect(matrix.length).toBe(6);
    expect(matrix.describe).toBe('matrix a(2) × b(3)');
    expect(matrix.at(4).value).toEqual({ a: 2, b: 'y' });
  });

  it('refuse an index out of range', () => {
    expect(() => createPathItems(['a'], 'glob').at(1)).toThrow(RangeError);
    expect(() => createMatrixItems([['a', [1]]]).at(-1)).toThrow(RangeError);
  });
});

describe('an item value without its context', () => {
  it('is the value at(k) holds, for paths, values and matrix combinations', () => {
    const lists = [
      createPathItems(['a/b.mp3', 'c.wav'], 'glob'),
      createValueItems(['x', 3, { path: 'p.txt', lang: 'en' }, null], 'items'),
      createMatrixItems([['lang', ['en', 'fr']], ['voice', ['a', 'b', 'c']]]),
    ];
    for (const list of lists) {
      for (let k = 0; k < list.length; k++) expect(list.valueAt(k)).toEqual(list.at(k).value);
      expect(() => list.valueAt(list.length)).toThrow(RangeError);
    }
    // Same keys in the same order: the journal names matrix items by their JSON.
    expect(JSON.stringify(lists[2]!.valueAt(4))).toBe(JSON.stringify(lists[2]!.at(4).value));
  });
});
