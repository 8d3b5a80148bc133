import type FastGlob from 'fast-glob';
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { formatPath } from '../format-path.js';
import { prepareScope } from '../expressions/evaluate.js';
import { staticValue } from '../expressions/static-value.js';
import type { ForEachDef, Template, Workflow } from '../types.js';
import { WORKFLOW_CODES, WorkflowError } from '../workflow-error.js';
import { createMatrixItems, createPathItems, createSourceItems, createValueItems, type ItemList } from './item-list.js';
import { readItemFile } from './read-item-file.js';

/** Longest file or folder name most file systems take (bytes). */
const MAX_NAME_BYTES = 255;

/** Most items one step may fan out over. */
export const MAX_ITEMS = 1_000_000;

/** A resolved source: its items, or the problem that stops it; `warning` for an empty glob. */
export type ItemSourceResult =
  | { readonly ok: true; readonly items: ItemList; readonly warning?: WorkflowError }
  | { readonly ok: false; readonly error: WorkflowError };

const INPUTS_ONLY = new Set(['inputs'] as const);

/**
 * Lists the items of a root source (glob, items, file, matrix). Paths and patterns may use
 * `${{ inputs.* }}` only: items must be known before the run starts.
 */
export async function resolveItemSource(
  source: Exclude<ForEachDef, { kind: 'step' }>,
  workflow: Workflow,
  inputs: Readonly<Record<string, unknown>>,
): Promise<ItemSourceResult> {
  const scope = prepareScope({ inputs });
  const render = (template: Template): string | WorkflowError => {
    const value = staticValue(template, INPUTS_ONLY, scope);
    if (value.kind === 'error') return value.error;
    if (value.kind === 'unknown') return problem(workflow, template.path, 'expected a path known before the run; only ${{ inputs.* }} may be used here');
    return String(value.value ?? '');
  };
  let items: ItemList;
  switch (source.kind) {
    case 'items':
      items = createValueItems(source.values, `${source.values.length} listed items`);
      break;
    case 'matrix':
      items = createMatrixItems(source.axes);
      break;
    case 'glob': {
      const patterns = source.patterns.map(render);
      const failed = patterns.find((p): p is WorkflowError => p instanceof WorkflowError);
      if (failed) return { ok: false, error: failed };
      if (patterns.some((p) => p === '')) return { ok: false, error: problem(workflow, source.path, 'expected a glob pattern, got an empty string') };
      // Loaded for the first glob: workflows without one never need it. (A CommonJS package:
      // import() gives its exports as `default`, which its `export =` types do not show.)
      const fg = ((await import('fast-glob')) as unknown as { default: typeof FastGlob }).default;
      const long = (patterns as string[]).flatMap((p) => p.split('/')).find((segment) => Buffer.byteLength(segment) > MAX_NAME_BYTES);
      if (long !== undefined) {
        return { ok: false, error: problem(workflow, source.path, `glob ${patterns.join(', ')}: expected path parts of at most ${MAX_NAME_BYTES} bytes, got one of ${Buffer.byteLength(long)}`) };
      }
      let paths: string[];
      try {
        paths = (await fg(patterns as string[], { cwd: workflow.dir, onlyFiles: true, unique: true, dot: false })).sort(compareCodeUnits);
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code ?? (error instanceof Error ? error.message : String(error));
        return { ok: false, error: problem(workflow, source.path, `glob ${patterns.join(', ')}: cannot list the files (${code})`) };
      }
      items = createPathItems(paths, `glob ${patterns.map((p) => JSON.stringify(p)).join(', ')}`);
      if (paths.length === 0) {
        // An empty folder is a quiet night; a folder that does not exist is a mistake.
        const missing = (patterns as string[]).map((p) => staticBase(p, fg.isDynamicPattern)).find((base) => base !== '' && !existsSync(resolve(workflow.dir, base)));
        if (missing !== undefined) return { ok: false, error: problem(workflow, source.path, `glob ${patterns.join(', ')}: folder ${JSON.stringify(missing)} not found (looked in ${workflow.dir})`) };
        const warning = new WorkflowError(WORKFLOW_CODES.forEach, workflow.locator.at(source.path), `glob ${patterns.join(', ')} matched no files (looked in ${workflow.dir}); the step has no items`);
        return { ok: true, items, warning };
      }
      break;
    }
    case 'file': {
      const written = render(source.file);
      if (written instanceof WorkflowError) return { ok: false, error: written };
      const absolute = resolve(workflow.dir, written);
      const result = await readItemFile(absolute, MAX_ITEMS);
      if (!result.ok) {
        const path = formatPath([...source.path, 'file']);
        const location = result.at
          ? { file: join(dirname(workflow.displayFile), written), ...result.at, path }
          : workflow.locator.at(source.file.path);
        return { ok: false, error: new WorkflowError(WORKFLOW_CODES.forEach, location, result.at ? result.reason : `${written}: ${result.reason}`) };
      }
      items = createSourceItems(result.values, `file ${written}`);
      break;
    }
  }
  if (items.length > MAX_ITEMS) return { ok: false, error: problem(workflow, source.path, `expected at most ${MAX_ITEMS} items, got ${items.length}`) };
  return { ok: true, items };
}

function problem(workflow: Workflow, path: readonly (string | number)[], reason: string): WorkflowError {
  return new WorkflowError(WORKFLOW_CODES.forEach, workflow.locator.at(path), reason);
}

/** The folder part of a pattern before its first wildcard segment (`media/episodes` of `media/episodes/*.mp3`). */
function staticBase(pattern: string, isDynamicPattern: (segment: string) => boolean): string {
  const segments = pattern.split('/');
  const fixed: string[] = [];
  for (const segment of segments.slice(0, -1)) {
    if (segment !== '' && isDynamicPattern(segment)) break;
    fixed.push(segment);
  }
  return fixed.join('/');
}

/** Sorts by UTF-16 code units: the same order on every machine and locale. */
export function compareCodeUnits(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
