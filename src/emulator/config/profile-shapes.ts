/**
 * The answers that differ between the two profiles (config `profile`):
 *
 * | answer     | `spec` (docs/deapi-contract.md, the written contract)| `live` (the live service, its public clients)           |
 * |------------|--------------------------------------------------------|----------------------------------------------------------|
 * | model list | `{ data: { data: [model], links, meta }, links, meta }` | `{ data: [model], links, meta }` (public docs, every client) |
 * | balance    | `{ balance }`                                          | `{ balance, data: { balance } }` (v1 OpenAPI, MCP server)  |
 *
 * Webhook rules of the live profile (http to private hosts, a generated account secret) live
 * in validation and config; paging is the spec's in both (paginator.ts).
 */
import type { ModelInfo } from '../../service/index.js';
import type { PageEnvelope } from '../protocol/paginator.js';
import type { EmulatorProfile } from '../types.js';

/** The body of a model-list answer. */
export function modelListBody(page: PageEnvelope<ModelInfo>, profile: EmulatorProfile): unknown {
  // The spec's envelope keeps `links` and `meta` at the top as well, for clients that read either level.
  if (profile === 'spec') return { data: page, links: page.links, meta: page.meta };
  return { data: page.data, links: page.links, meta: page.meta };
}

/** The body of a balance answer (USD). */
export function balanceBody(balance: number, profile: EmulatorProfile): unknown {
  return profile === 'spec' ? { balance } : { balance, data: { balance } };
}
