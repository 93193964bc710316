import type { ComponentChildren } from 'preact';
import { useLayoutEffect, useRef } from 'preact/hooks';

/**
 * Every table of the dashboard: a caption for screen readers, its column headers, an
 * "empty" row spanning them all, and its rows. At 1280 px cells wrap so the table fits its
 * column; on a phone (styles.css) each row becomes a card whose cells are labelled with their
 * column's header, which this component copies onto each cell as `data-label` after every
 * render (rows come and go with the data), so the header text is written once.
 */
export function Table(props: {
  caption: string;
  /** Column headers; `false` leaves a column out (e.g. Actions for a viewer). */
  columns: readonly (string | false)[];
  /** Shown in one row across every column when set (the list is empty). */
  empty?: string | false;
  class?: string;
  children: ComponentChildren;
}) {
  const columns = props.columns.filter((c): c is string => c !== false);
  const table = useRef<HTMLTableElement>(null);
  useLayoutEffect(() => {
    for (const row of Array.from(table.current?.tBodies[0]?.rows ?? []))
      Array.from(row.cells).forEach((cell, i) => {
        if (cell.colSpan === 1 && columns[i]) cell.dataset.label = columns[i];
      });
  });
  return (
    <div class="table-wrap">
      <table ref={table} class={props.class}>
        <caption class="sr-only">{props.caption}</caption>
        <thead>
          <tr>
            {columns.map((c) => (
              <th key={c} scope="col">
                {c}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {props.empty && (
            <tr>
              <td colSpan={columns.length} class="empty-state">
                <svg class="mark" viewBox="0 0 32 32" aria-hidden="true">
                  <use href="#mark" />
                </svg>
                <span>{props.empty}</span>
              </td>
            </tr>
          )}
          {props.children}
        </tbody>
      </table>
    </div>
  );
}
