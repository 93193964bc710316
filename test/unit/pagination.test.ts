/**
 * Page arithmetic (functions/core/pagination.ts) over generated list sizes and pages: the
 * pages of a list, newest first, hold every item once, in order, each page at most
 * per_page of them; the links lead from page to page. test/unit/core.test.ts holds the
 * worked examples; the HTTP tests show the same through the lists.
 */
import fc from 'fast-check';
import { listLinks, pageWindow } from '../../functions/core/pagination.js';

const total = fc.nat({ max: 500 });
const perPage = fc.integer({ min: 1, max: 100 });

/** The sequence numbers a page window reads, newest first. */
const itemsOf = (w: { from: number; to: number }) => Array.from({ length: Math.max(0, w.to - w.from + 1) }, (_, i) => w.to - i);

describe('page windows', () => {
  it('cover 1..total exactly once, newest first, page after page', () => {
    fc.assert(
      fc.property(total, perPage, (n, per_page) => {
        const { pages } = pageWindow(n, { page: 1, per_page }).pagination;
        const seen = Array.from({ length: pages }, (_, i) => itemsOf(pageWindow(n, { page: i + 1, per_page }))).flat();
        expect(seen).toEqual(Array.from({ length: n }, (_, i) => n - i));
      }),
    );
  });

  it('hold per_page items on every page but the last, which holds the rest, and none past it', () => {
    fc.assert(
      fc.property(total, perPage, fc.integer({ min: 1, max: 600 }), (n, per_page, page) => {
        const w = pageWindow(n, { page, per_page });
        const { pages } = w.pagination;
        expect(pages).toBe(Math.ceil(n / per_page));
        const count = itemsOf(w).length;
        if (page < pages) expect(count).toBe(per_page);
        else if (page === pages) expect(count).toBe(n - (pages - 1) * per_page);
        else expect(count).toBe(0);
        expect(w.pagination).toEqual({ page, per_page, total: n, pages });
        // A window never reaches outside the list: no read of a sequence number that is not there.
        for (const s of itemsOf(w)) expect(s >= 1 && s <= n).toBe(true);
      }),
    );
  });
});

describe('list links', () => {
  const parse = (link: string) => Object.fromEntries(new URL(link, 'http://x').searchParams);

  it('keep the filters, lead one page on and back, and stop at the ends', () => {
    fc.assert(
      fc.property(total, perPage, fc.integer({ min: 1, max: 600 }), (n, per_page, page) => {
        const { pagination } = pageWindow(n, { page, per_page });
        const links = listLinks('/deployments', { status: 'ready', app_type: undefined }, pagination);
        for (const link of Object.values(links).filter((l): l is string => l !== null)) {
          expect(link.startsWith('/api/v1/deployments?')).toBe(true);
          expect(parse(link)).toMatchObject({ status: 'ready', per_page: String(per_page) });
          expect(parse(link)).not.toHaveProperty('app_type');
        }
        expect(parse(links.self).page).toBe(String(page));
        expect(parse(links.first).page).toBe('1');
        expect(parse(links.last).page).toBe(String(Math.max(1, pagination.pages)));
        if (page < pagination.pages) expect(parse(links.next!).page).toBe(String(page + 1));
        else expect(links.next).toBeNull();
        if (page === 1) expect(links.prev).toBeNull();
        // From past the end, prev leads back to the last page, not to another empty one.
        else expect(parse(links.prev!).page).toBe(String(Math.min(page - 1, Math.max(1, pagination.pages))));
      }),
    );
  });
});
