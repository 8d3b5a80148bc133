import { readFile as readFileCallback } from 'node:fs';
import { promisify } from 'node:util';
import { writeFileAtomically } from '../../common/index.js';
import { MODEL_CATALOGUE, type ModelInfo } from '../../service/index.js';
import { isRecord } from '../build/plain.js';

/** node:fs's readFile, not node:fs/promises' (which costs every start a dozen more built-ins). */
const readFile = promisify(readFileCallback);

/** Where the model list used for validation came from. */
export type ModelSourceKind = 'service' | 'cache' | 'built-in';

/** The models `info.limits` and `info.defaults` are checked against. */
export interface ModelSource {
  readonly kind: ModelSourceKind;
  /** For the plan: `service (live model list)`, `cache .deflow/models.json`, `built-in catalogue`. */
  readonly description: string;
  readonly models: readonly ModelInfo[];
  readonly find: (slug: string) => ModelInfo | undefined;
}

/** Options for {@link loadModelSource}. */
export interface LoadModelSourceOptions {
  /** Use only cached copies (the cache file, else the built-in catalogue); never call `fetchModels`. @default false */
  readonly offline?: boolean;
  /** Fetches the live model list (given when an API key is present). */
  readonly fetchModels?: () => Promise<readonly ModelInfo[]>;
  /** A cached model list: an array of models, `{ models: [...] }` or the API's `{ data: { data: [...] } }`. */
  readonly cacheFile?: string;
}

/** The source, and a warning when a preferred source failed and another answered. */
export interface LoadedModelSource {
  readonly source: ModelSource;
  readonly warnings: readonly string[];
}

/**
 * Picks the model list: the live service when a fetcher is given and not offline, else the
 * cache file when it exists, else the built-in catalogue (the offline copy shipped with deflow).
 */
export async function loadModelSource(options: LoadModelSourceOptions = {}): Promise<LoadedModelSource> {
  const warnings: string[] = [];
  if (!options.offline && options.fetchModels) {
    try {
      const models = await options.fetchModels();
      if (options.cacheFile !== undefined) await writeCache(options.cacheFile, models, warnings);
      return { source: createModelSource('service', 'service (live model list)', models), warnings };
    } catch (error) {
      warnings.push(`cannot fetch the model list (${error instanceof Error ? error.message : String(error)}); using a cached copy`);
    }
  }
  if (options.cacheFile !== undefined) {
    const cached = await readCache(options.cacheFile);
    if (cached.models) return { source: createModelSource('cache', `cache ${options.cacheFile}`, cached.models), warnings };
    if (cached.problem) warnings.push(`ignoring the model cache ${options.cacheFile}: ${cached.problem}`);
  }
  return { source: createModelSource('built-in', 'built-in catalogue', MODEL_CATALOGUE), warnings };
}

/** A source over a given list. */
export function createModelSource(kind: ModelSourceKind, description: string, models: readonly ModelInfo[]): ModelSource {
  const bySlug = new Map(models.map((m) => [m.slug, m]));
  return { kind, description, models, find: (slug) => bySlug.get(slug) };
}

/** Keeps the live list for offline runs: written atomically, a failure is only a warning. */
async function writeCache(file: string, models: readonly ModelInfo[], warnings: string[]): Promise<void> {
  try {
    await writeFileAtomically(file, `${JSON.stringify({ fetched_at: new Date().toISOString(), models })}\n`, { makeFolder: true });
  } catch (error) {
    warnings.push(`cannot update the model cache ${file} (${error instanceof Error ? error.message : String(error)})`);
  }
}

async function readCache(file: string): Promise<{ models?: readonly ModelInfo[]; problem?: string }> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return code === 'ENOENT' ? {} : { problem: `cannot read it (${code ?? String(error)})` };
  }
  try {
    const parsed: unknown = JSON.parse(text);
    const list = Array.isArray(parsed) ? parsed : isRecord(parsed) && Array.isArray(parsed.models) ? parsed.models : isRecord(parsed) && isRecord(parsed.data) && Array.isArray(parsed.data.data) ? parsed.data.data : undefined;
    if (!list) return { problem: 'expected a list of models' };
    const models = list.filter(isModel);
    if (models.length !== list.length) return { problem: 'some entries are not models (slug, inference_types, info)' };
    // A model list may leave out `features`; the rules read it, so it is filled in empty.
    return { models: models.map((m) => ({ ...m, info: { ...m.info, features: m.info.features ?? {} } })) };
  } catch (error) {
    return { problem: `not JSON (${error instanceof Error ? error.message : String(error)})` };
  }
}

function isModel(value: unknown): value is ModelInfo {
  if (!isRecord(value) || typeof value.slug !== 'string' || !Array.isArray(value.inference_types)) return false;
  const info = value.info;
  return isRecord(info) && isRecord(info.limits) && isRecord(info.defaults) && (info.features === undefined || isRecord(info.features));
}
