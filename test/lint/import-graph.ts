/**
 * The import graph of a tree of TypeScript sources, read as text: every relative module a file
 * names (`import`, `import type`, `export … from`, `import()`), and the strongly connected sets
 * (circles) of a graph. Used by folder-cycles.test.ts on src/ and on planted copies of it.
 */
import { readdirSync, readFileSync } from 'node:fs';
import * as path from 'node:path';

const SPECIFIER = /(?:from\s+|import\s*\(\s*|import\s+)['"](\.{1,2}\/[^'"]+)['"]/g;

/** Directed graph: node → the nodes it imports. */
export type Graph = Map<string, Set<string>>;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(full);
    return entry.name.endsWith('.ts') ? [full] : [];
  });
}

const posix = (p: string): string => p.split(path.sep).join('/');

/** File → files it imports, paths relative to `root` (posix): `src/cli/main.ts`. */
export function fileGraph(root: string, dir = 'src'): Graph {
  const graph: Graph = new Map();
  for (const file of sourceFiles(path.join(root, dir))) {
    const edges = new Set<string>();
    graph.set(posix(path.relative(root, file)), edges);
    for (const match of readFileSync(file, 'utf8').matchAll(SPECIFIER)) {
      const target = path.resolve(path.dirname(file), match[1]!).replace(/\.js$/, '.ts');
      const named = posix(path.relative(root, target));
      edges.add(named.endsWith('.ts') ? named : `${named}/index.ts`);
    }
  }
  return graph;
}

/**
 * The node of the folder graph a file stands for: its folder, except for a file that sits beside
 * sub-folders (a layer's face, composition root or shared types: `src/cli/main.ts`,
 * `src/workflow/types.ts`), which stands for itself, since a layer's loose files are each above
 * or below its sub-folders, not all on one side.
 */
export function folderNodes(files: Graph): (file: string) => string {
  const hasSubfolders = new Set<string>();
  for (const file of files.keys()) {
    const parts = file.split('/');
    for (let i = 1; i < parts.length - 1; i += 1) hasSubfolders.add(parts.slice(0, i).join('/'));
  }
  return (file) => (hasSubfolders.has(path.posix.dirname(file)) ? file : path.posix.dirname(file));
}

/** Folder → folders it imports (see {@link folderNodes}), within src/. */
export function folderGraph(files: Graph): Graph {
  const nodeOf = folderNodes(files);
  const graph: Graph = new Map();
  for (const [file, targets] of files) {
    const from = nodeOf(file);
    const edges = graph.get(from) ?? new Set<string>();
    graph.set(from, edges);
    for (const target of targets) if (nodeOf(target) !== from && target.startsWith('src/')) edges.add(nodeOf(target));
  }
  return graph;
}

/** Every strongly connected set of more than one node, each sorted (Tarjan). */
export function cycles(graph: Graph): string[][] {
  let counter = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
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
      if (set.length > 1) found.push(set.sort());
    }
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  return found;
}

/** Each arrow inside the circles of a folder graph, with the imports behind it: what a failing test prints. */
export function describeFolderCycles(files: Graph, found: readonly string[][]): string[] {
  const nodeOf = folderNodes(files);
  return found.flatMap((set) => {
    const arrows = [...files].flatMap(([file, targets]) => [...targets].filter((t) => nodeOf(t) !== nodeOf(file) && set.includes(nodeOf(file)) && set.includes(nodeOf(t))).map((t) => `${file} -> ${t}`));
    return [`circle ${set.join(' ')}: ${arrows.join(', ')}`];
  });
}
