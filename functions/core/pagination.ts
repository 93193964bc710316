/**
 * Page arithmetic over dense sequence numbers. Every list is numbered 1..total in
 * creation order, so page N, newest first, is exactly the sequence range computed
 * here: a list reads only the items it returns, whatever the page number.
 */
import { API_PREFIX } from '../../contract/paths.js';
import type { ListLinks, Pagination } from '../../contract/schemas.js';

export interface PageRequest {
  page: number;
  per_page: number;
}

export interface PageWindow {
  pagination: Pagination;
  /** Inclusive sequence range of the page's items (empty when from > to). */
  from: number;
  to: number;
}

export function pageWindow(total: number, { page, per_page }: PageRequest): PageWindow {
  const pages = Math.ceil(total / per_page);
  const to = total - (page - 1) * per_page;
  const from = Math.max(1, to - per_page + 1);
  return { pagination: { page, per_page, total, pages }, from, to };
}

/** `self`, `first`, `last`, `next`, `prev` for a list path, keeping its filters. */
export function listLinks(path: string, filters: Record<string, string | undefined>, p: Pagination): ListLinks {
  const at = (page: number) => {
    const q = new URLSearchParams();
    for (const [k, v] of Object.entries(filters)) if (v !== undefined) q.set(k, v);
    q.set('page', String(page));
    q.set('per_page', String(p.per_page));
    return `${API_PREFIX}${path}?${q.toString()}`;
  };
  const last = Math.max(1, p.pages);
  return {
    self: at(p.page),
    first: at(1),
    last: at(last),
    next: p.page < p.pages ? at(p.page + 1) : null,
    prev: p.page > 1 ? at(Math.min(p.page - 1, last)) : null,
  };
}
