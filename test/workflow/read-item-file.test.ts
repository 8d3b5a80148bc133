import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ItemFileResult, readItemFile } from '../../src/workflow/items/read-item-file.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'deflow-item-file-'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

async function file(name: string, content: string): Promise<string> {
  await writeFile(join(dir, name), content);
  return join(dir, name);
}

/** The file's result, its items decoded into an array. */
async function read(name: string, content: string, maxItems = 3): Promise<{ ok: true; values: unknown[] } | Exclude<ItemFileResult, { ok: true }>> {
  await writeFile(join(dir, name), content);
  const result = await readItemFile(join(dir, name), maxItems);
  if (!result.ok) return result;
  return { ok: true, values: Array.from({ length: result.values.length }, (_, k) => result.values.get(k)) };
}

const overCap = (line: number) => ({ ok: false, at: { line, col: 1 }, reason: 'expected at most 3 items, got more: item 4 is on this line (the file is refused without reading further)' });

describe('readItemFile', () => {
  it('reads lines split across chunks, CRLF, a BOM and blank lines', async () => {
    expect(await read('a.txt', '\uFEFFone\r\n\n  \ntwo\nthree')).toEqual({ ok: true, values: ['one', 'two', 'three'] });
    const long = 'x'.repeat(3 * 1024 * 1024);
    expect(await read('long.txt', `${long}\n${long}é\n`)).toEqual({ ok: true, values: [long, `${long}é`] });
  });

  it('refuses the first item past the cap at its line, for text, JSON lines and CSV', async () => {
    expect(await read('b.txt', 'a\n\nb\nc\nd\ne\n')).toEqual(overCap(5));
    expect(await read('b.jsonl', '1\n2\n3\n{"x":\n')).toEqual(overCap(4));
    expect(await read('b.csv', 'h\n1\n2\n3\n4\n5\n')).toEqual(overCap(5));
    expect(await read('c.csv', 'h\n1\n2\n3\n')).toEqual({ ok: true, values: [{ h: '1' }, { h: '2' }, { h: '3' }] });
  });

  it('keeps JSON lines and CSV rows compact and decodes them when asked, with their record fields', async () => {
    const lines = await readItemFile(await file('e.jsonl', '{"a":1,"b":[2]}\n"s"\n\n{"c":null}\r\n'), 3);
    if (!lines.ok) throw new Error(lines.reason);
    expect([lines.values.get(0), lines.values.get(1), lines.values.get(2)]).toEqual([{ a: 1, b: [2] }, 's', { c: null }]);
    expect([...lines.values.fields]).toEqual(['a', 'b', 'c']);
    expect(() => lines.values.get(3)).toThrow(RangeError);
    const csv = await readItemFile(await file('e.csv', 'x,__proto__\n1,"a,b"\n,é\n'), 3);
    if (!csv.ok) throw new Error(csv.reason);
    expect(csv.values.length).toBe(2);
    expect(csv.values.get(1)).toEqual({ x: '', ['__proto__']: 'é' });
    expect(Object.getPrototypeOf(csv.values.get(0))).toBe(Object.prototype);
    expect(Object.hasOwn(csv.values.get(0) as object, '__proto__')).toBe(true);
    expect([...csv.values.fields]).toEqual(['x', '__proto__']);
    expect(() => csv.values.get(2)).toThrow(RangeError);
  });

  it('reads a CSV of more cells than one joined chunk holds', async () => {
    const rows = Array.from({ length: 10_000 }, (_, i) => `r${i},${'v'.repeat(i % 7)}`);
    const csv = await readItemFile(await file('big.csv', `id,pad\n${rows.join('\n')}\n`), 10_000);
    if (!csv.ok) throw new Error(csv.reason);
    expect(csv.values.length).toBe(10_000);
    for (const k of [0, 4095, 4096, 8191, 8192, 9999]) expect(csv.values.get(k)).toEqual({ id: `r${k}`, pad: 'v'.repeat(k % 7) });
  });

  it('locates a bad JSON line and a bad CSV row', async () => {
    expect(await read('d.jsonl', '{"a":1}\n{"a":\n')).toMatchObject({ ok: false, at: { line: 2, col: 1 }, reason: expect.stringMatching(/^expected one JSON value per line \(/) });
    expect(await read('d.csv', 'a,b\n1,2\n3\n')).toEqual({ ok: false, at: { line: 3, col: 1 }, reason: 'cannot read the CSV (Invalid Record Length: columns length is 2, got 1 on line 3)' });
  });
});
