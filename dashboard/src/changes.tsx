import type { ConfigChange } from '../../contract/schemas.js';

import { scheduleText } from './hibernation.js';
import { Table } from './table.js';

type Shown = ConfigChange['from'];

/** One side of a change as a reader wants it: a secret never shows a value (it has none to show). */
function side(v: Shown) {
  if (v === null) return <span class="note">(none)</span>;
  if (typeof v === 'string') return <code>{v}</code>;
  if ('schedules' in v) return <code>{scheduleText(v)}</code>;
  if (v.secret) return <span class="badge secret">secret</span>;
  return <code>{v.value}</code>;
}

/** A dry run's `changes` (decision 42) as a before/after diff, one row per changed field. */
export function ChangeList({ changes }: { changes: readonly ConfigChange[] }) {
  if (changes.length === 0) return <p class="note">Nothing would change: this is the current configuration.</p>;
  return (
    <Table class="diff" caption="What would change" columns={['Field', 'Now', 'After']}>
      {changes.map((c) => (
        <tr key={c.field} class={c.to === null ? 'removed' : c.from === null ? 'added' : 'changed'}>
          <th scope="row">
            <code>{c.field}</code>
          </th>
          <td class="from">{side(c.from)}</td>
          <td class="to">{side(c.to)}</td>
        </tr>
      ))}
    </Table>
  );
}
