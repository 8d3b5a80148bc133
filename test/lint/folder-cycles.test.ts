/**
 * No circle between the rooms of src/: every module names others (`import`, `import type`,
 * `export … from`, `import()`), and the rooms those arrows join must form no cycle, so each
 * room can be read knowing only the rooms below it (docs/architecture.md). A room is a layer
 * (`src/client`, `src/workflow`, …) with its sub-folders, except in the engine, where each role
 * folder (`src/engine/run`, `src/engine/quote`, …) is a room and the files at its root are one
 * more (the composition root).
 */
import { readdirSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '../..');
const SPECIFIER = /(?:from\s+|import\s*\(\s*|import\s+)['"](\.{1,2}\/[^'"]+)['"]/g;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(full);
    return entry.name.endsWith('.ts') ? [full] : [];
  });
}

const ENGINE_ROOMS = new Set(['contracts', 'cache', 'webhooks', 'quote', 'run', 'journal', 'queue']);

/** The room a folder belongs to (repo-relative, posix). */
export function roomOf(folder: string): string {
  const parts = folder.split('/');
  if (parts[1] === 'engine') return parts[2] && ENGINE_ROOMS.has(parts[2]) ? parts.slice(0, 3).join('/') : 'src/engine';
  return parts.slice(0, 2).join('/');
}

/** Room → rooms its files import. */
function roomGraph(srcDir: string): Map<string, Set<string>> {
  const rooms = new Map<string, Set<string>>();
  for (const [folder, targets] of folderGraph(srcDir)) {
    const from = roomOf(folder);
    const edges = rooms.get(from) ?? new Set<string>();
    rooms.set(from, edges);
    for (const target of targets) if (roomOf(target) !== from) edges.add(roomOf(target));
  }
  return rooms;
}

/** Folder → folders its files import (repo-relative, posix). */
export function folderGraph(srcDir: string): Map<string, Set<string>> {
  const graph = new Map<string, Set<string>>();
  for (const file of sourceFiles(srcDir)) {
    const from = path.relative(ROOT, path.dirname(file)).split(path.sep).join('/');
    const edges = graph.get(from) ?? new Set<string>();
    graph.set(from, edges);
    for (const match of readFileSync(file, 'utf8').matchAll(SPECIFIER)) {
      const target = path.resolve(path.dirname(file), match[1]!);
      const to = path.relative(ROOT, path.dirname(target)).split(path.sep).join('/');
      if (to !== from && to.startsWith('src')) edges.add(to);
    }
  }
  return graph;
}

/** Every strongly connected set of more than one folder (Tarjan). */
export function folderCycles(graph: Map<string, Set<string>>): string[][] {
  let counter = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[][] = [];
  const visit = (v: string): void => {
    index.set(v, counter);
    low.set(v, counter);
    counter += 1;
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) === index.get(v)) {
      const set: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        set.push(w);
      } while (w !== v);
      if (set.length > 1) cycles.push(set.sort());
    }
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  return cycles;
}

describe('folders of src/', () => {
  it('make rooms (layers, and the role folders of the engine) that import each other in no circle', () => {
    const graph = roomGraph(path.join(ROOT, 'src'));
    expect(graph.has('src/engine/run') && graph.has('src/workflow')).toBe(true);
    expect(folderCycles(graph)).toEqual([]);
  });

  it('the cycle finder names a planted circle between two folders', () => {
    const graph = new Map([
      ['src/a', new Set(['src/b'])],
      ['src/b', new Set(['src/c'])],
      ['src/c', new Set(['src/a'])],
      ['src/d', new Set(['src/a'])],
    ]);
    expect(folderCycles(graph)).toEqual([['src/a', 'src/b', 'src/c']]);
  });

  it('holds no folder of more than 25 files', () => {
    const crowded = [...folderGraph(path.join(ROOT, 'src')).keys()]
      .map((folder) => [folder, readdirSync(path.join(ROOT, folder)).filter((name) => name.endsWith('.ts')).length] as const)
      .filter(([, count]) => count > 25);
    expect(crowded).toEqual([]);
  });
});
