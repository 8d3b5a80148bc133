import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readItemFile } from '../../src/workflow/items/read-item-file.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'deflow-item-file-'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

async function read(name: string, content: string, maxItems = 3): Promise<Awaited<ReturnType<typeof readItemFile>>> {
  await writeFile(join(dir, name), content);
  return readItemFile(join(dir, name), maxItems);
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

  it('locates a bad JSON line and a bad CSV row', async () => {
    expect(await read('d.jsonl', '{"a":1}\n{"a":\n')).toMatchObject({ ok: false, at: { line: 2, col: 1 }, reason: expect.stringMatching(/^expected one JSON value per line \(/) });
    expect(await read('d.csv', 'a,b\n1,2\n3\n')).toEqual({ ok: false, at: { line: 3, col: 1 }, reason: 'cannot read the CSV (Invalid Record Length: columns length is 2, got 1 on line 3)' });
  });
});
