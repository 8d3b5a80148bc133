/**
 * What expressions see. `steps` holds, for each upstream step id, its result for this item
 * (`{ request_id, result_url, text, json, path, cost }`), or for a gather the same keys each
 * holding the list of all items' values (see `gatherResults`). Absent contexts are null.
 */
export interface ExpressionScope {
  readonly inputs?: Readonly<Record<string, unknown>>;
  readonly item?: unknown;
  readonly steps?: Readonly<Record<string, unknown>>;
  readonly run?: { readonly id: string; readonly started_at: string };
}
