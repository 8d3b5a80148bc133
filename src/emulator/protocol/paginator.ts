/**
 * Laravel-style page of a list (spec: Payment collection; Model list): `limit` default 50,
 * 1–100 clamped, `per_page` its alias (ignored when `limit` is present), `page` default 1.
 * Links keep the other query parameters, as Laravel's `withQueryString()` does.
 */

/** Page size and number read from a query. */
export interface PageQuery {
  readonly perPage: number;
  readonly page: number;
}

/** A `meta.links` element. */
export interface PageLink {
  readonly url: string | null;
  readonly label: string;
  readonly page: number | null;
  readonly active: boolean;
}

/** The `links` / `meta` pair of a page. */
export interface PageEnvelope<T> {
  readonly data: readonly T[];
  readonly links: { first: string; last: string; prev: string | null; next: string | null };
  readonly meta: {
    current_page: number;
    from: number | null;
    last_page: number;
    links: PageLink[];
    path: string;
    per_page: number;
    to: number | null;
    total: number;
  };
}

const DEFAULT_PER_PAGE = 50;
const MAX_PER_PAGE = 100;
/** Pages shown on each side of the current one before Laravel collapses the rest into `...`. */
const ON_EACH_SIDE = 3;

/** Reads `limit` / `per_page` / `page` with the spec's defaults and clamping. */
export function readPageQuery(query: URLSearchParams): PageQuery {
  const limit = readInteger(query.get('limit'));
  const perPage = limit ?? readInteger(query.get('per_page')) ?? DEFAULT_PER_PAGE;
  const page = readInteger(query.get('page')) ?? 1;
  return { perPage: Math.min(MAX_PER_PAGE, Math.max(1, perPage)), page: Math.max(1, page) };
}

function readInteger(value: string | null): number | null {
  if (value === null || value.trim() === '') return null;
  const n = Number(value);
  return Number.isFinite(n) ? Math.trunc(n) : null;
}

/** One page of `items` at `path` (an absolute URL without query). */
export function paginate<T>(items: readonly T[], pageQuery: PageQuery, path: string, query: URLSearchParams): PageEnvelope<T> {
  const { perPage, page } = pageQuery;
  const total = items.length;
  const lastPage = Math.max(1, Math.ceil(total / perPage));
  const data = items.slice((page - 1) * perPage, page * perPage);
  const from = data.length > 0 ? (page - 1) * perPage + 1 : null;
  const to = from === null ? null : from + data.length - 1;
  const url = (n: number): string => pageUrl(path, query, n);
  const prev = page > 1 ? url(page - 1) : null;
  const next = page < lastPage ? url(page + 1) : null;
  const links: PageLink[] = [{ url: prev, label: '&laquo; Previous', page: page > 1 ? page - 1 : null, active: false }];
  for (const n of pageWindow(page, lastPage)) {
    links.push(n === null ? { url: null, label: '...', page: null, active: false } : { url: url(n), label: String(n), page: n, active: n === page });
  }
  links.push({ url: next, label: 'Next &raquo;', page: page < lastPage ? page + 1 : null, active: false });
  return {
    data,
    links: { first: url(1), last: url(lastPage), prev, next },
    meta: { current_page: page, from, last_page: lastPage, links, path, per_page: perPage, to, total },
  };
}

function pageUrl(path: string, query: URLSearchParams, page: number): string {
  const params = new URLSearchParams(query);
  params.delete('page');
  params.append('page', String(page));
  return `${path}?${params.toString()}`;
}

/** Page numbers to list, `null` standing for a `...` gap (Laravel's UrlWindow). */
function pageWindow(current: number, last: number): (number | null)[] {
  const range = (a: number, b: number): number[] => Array.from({ length: Math.max(0, b - a + 1) }, (_, i) => a + i);
  const window = ON_EACH_SIDE * 2;
  if (last < window + 8) return range(1, last);
  if (current <= window) return [...range(1, window + 2), null, ...range(last - 1, last)];
  if (current > last - window) return [...range(1, 2), null, ...range(last - (window + 2), last)];
  return [...range(1, 2), null, ...range(current - ON_EACH_SIDE, current + ON_EACH_SIDE), null, ...range(last - 1, last)];
}
