/**
 * No circle in src/: between rooms, between folders, or between files. Every module names
 * others (`import`, `import type`, `export … from`, `import()`; import-graph.ts reads them), and
 * - the rooms those arrows join form no cycle, so each room can be read knowing only the rooms
 *   below it (docs/architecture.md). A room is a layer (`src/client`, `src/workflow`, …) with its
 *   sub-folders, except in the engine, where each role folder (`src/engine/run`, …) is a room and
 *   the files at its root are one more (the composition root);
 * - no two folders import each other, sub-folders of one layer included (`cli/actions/run` and
 *   `cli/commands`); a file beside sub-folders (a layer's face or shared types) counts alone;
 * - no two files import each other, directly or through others.
 */
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cycles, describeFolderCycles, fileGraph, folderGraph, type Graph } from './import-graph.js';

const ROOT = path.resolve(import.meta.dirname, '../..');

const ENGINE_ROOMS = new Set(['contracts', 'cache', 'webhooks', 'quote', 'run', 'journal', 'queue']);

/** The room a folder belongs to (repo-relative, posix). */
export function roomOf(folder: string): string {
  const parts = folder.split('/');
  if (parts[1] === 'engine') return parts[2] && ENGINE_ROOMS.has(parts[2]) ? parts.slice(0, 3).join('/') : 'src/engine';
  return parts.slice(0, 2).join('/');
}

/** Room → rooms its files import. */
function roomGraph(files: Graph): Graph {
  const rooms: Graph = new Map();
  for (const [file, targets] of files) {
    const from = roomOf(path.posix.dirname(file));
    const edges = rooms.get(from) ?? new Set<string>();
    rooms.set(from, edges);
    for (const target of targets) if (target.startsWith('src/') && roomOf(path.posix.dirname(target)) !== from) edges.add(roomOf(path.posix.dirname(target)));
  }
  return rooms;
}

const FILES = fileGraph(ROOT);

/** A copy of src/ in a temporary folder, to plant an import in. */
function copyOfSrc(): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'deflow-cycles-'));
  cpSync(path.join(ROOT, 'src'), path.join(dir, 'src'), { recursive: true });
  return dir;
}

function plant(root: string, file: string, line: string): void {
  const full = path.join(root, file);
  writeFileSync(full, `${line}\n${readFileSync(full, 'utf8')}`);
}

describe('folders of src/', () => {
  const copies: string[] = [];
  afterAll(() => {
    for (const dir of copies) rmSync(dir, { recursive: true, force: true });
  });

  it('make rooms (layers, and the role folders of the engine) that import each other in no circle', () => {
    const graph = roomGraph(FILES);
    expect(graph.has('src/engine/run') && graph.has('src/workflow')).toBe(true);
    expect(cycles(graph)).toEqual([]);
  });

  it('import each other in no circle, sub-folders of one layer included (cli/actions/run, cli/commands)', () => {
    const graph = folderGraph(FILES);
    expect(graph.get('src/cli/commands')?.has('src/cli/actions/run')).toBe(true);
    expect(describeFolderCycles(FILES, cycles(graph))).toEqual([]);
  });

  it('hold files that import each other in no circle', () => {
    expect(FILES.has('src/cli/main.ts') && FILES.get('src/cli/main.ts')!.has('src/cli/commands/run.ts')).toBe(true);
    expect(cycles(FILES)).toEqual([]);
  });

  it('the cycle finder names a planted circle between two folders', () => {
    const graph = new Map([
      ['src/a', new Set(['src/b'])],
      ['src/b', new Set(['src/c'])],
      ['src/c', new Set(['src/a'])],
      ['src/d', new Set(['src/a'])],
    ]);
    expect(cycles(graph)).toEqual([['src/a', 'src/b', 'src/c']]);
  });

  it('a circle of files planted in a copy of src/ is found, and names its files', () => {
    const root = copyOfSrc();
    copies.push(root);
    // rate-governor.ts imports model-routes.ts and permit-once.ts; the planted line closes the loops.
    plant(root, 'src/client/permit-once.ts', "import type { RateGovernor } from './rate-governor.js';");
    expect(cycles(fileGraph(root))).toEqual([['src/client/model-routes.ts', 'src/client/permit-once.ts', 'src/client/rate-governor.ts']]);
  });

  it('a circle of sub-folders of one layer planted in a copy of src/ is found, though no two files form one', () => {
    const root = copyOfSrc();
    copies.push(root);
    // commands/ import actions/state/ (the flag types); the planted line makes actions/state/ import commands/.
    plant(root, 'src/cli/actions/state/gc-action.ts', "import type { ActionWrapper } from '../../commands/action-wrapper.js';");
    const files = fileGraph(root);
    expect(cycles(files)).toEqual([]);
    expect(cycles(folderGraph(files))).toContainEqual(['src/cli/actions/state', 'src/cli/commands']);
  });

  it('holds no folder of more than 25 files', () => {
    const folders = new Set([...FILES.keys()].map((file) => path.posix.dirname(file)));
    const crowded = [...folders]
      .map((folder) => [folder, readdirSync(path.join(ROOT, folder)).filter((name) => name.endsWith('.ts')).length] as const)
      .filter(([, count]) => count > 25);
    expect(crowded).toEqual([]);
  });
});
