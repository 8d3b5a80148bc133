/**
 * The model list the emulator serves: the built-in catalogue, filtered by
 * `filter[inference_types]=a,b` and paged like every list (spec: Model list).
 */
import { MODEL_CATALOGUE, type ModelInfo } from '../../service/index.js';
import { type PageEnvelope, paginate, readPageQuery } from '../protocol/paginator.js';
import type { ModelRegistry } from '../types.js';

/** A registry over `models` (the built-in catalogue by default). */
export function createModelRegistry(models: readonly ModelInfo[] = MODEL_CATALOGUE): ModelRegistry {
  const bySlug = new Map(models.map((m) => [m.slug, m]));
  return {
    list: () => models,
    find: (slug) => bySlug.get(slug),
  };
}

/** One page of the model list for a request's query; `path` is the absolute URL of the route. */
export function listModels(registry: ModelRegistry, query: URLSearchParams, path: string): PageEnvelope<ModelInfo> {
  const wanted = readInferenceFilter(query);
  const models = wanted ? registry.list().filter((m) => m.inference_types.some((t) => wanted.has(t))) : registry.list();
  return paginate(models, readPageQuery(query), path, query);
}

function readInferenceFilter(query: URLSearchParams): Set<string> | null {
  const values = [...query.getAll('filter[inference_types]'), ...query.getAll('filter[inference_types][]')];
  const types = values.flatMap((v) => v.split(',')).map((t) => t.trim()).filter((t) => t.length > 0);
  return types.length > 0 ? new Set(types) : null;
}
