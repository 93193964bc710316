import { useState } from 'preact/hooks';
import type { ActivityEntry } from '../../../contract/dashboard-schemas.js';
import type { Deployment, Operation } from '../../../contract/schemas.js';
import { Alert } from '../alert.js';
import { api } from '../api.js';
import { describeChange } from '../event-summary.js';
import { formatTime, useLoad } from '../hooks.js';
import { Table } from '../table.js';

const PER_PAGE = 25;

/** Who made the change (decision 46): a key by its name, a user by email or id, the workflow; ids on hover. */
function Actor({ entry }: { entry: ActivityEntry }) {
  const a = entry.actor;
  if (a.type === 'system') return <span class="actor">workflow</span>;
  return (
    <span class="actor" title={a.id}>
      <span class="badge kind">{a.type === 'api_key' ? 'key' : 'user'}</span> <strong>{entry.actor_name ?? a.id}</strong>
    </span>
  );
}

/** The record an event is about: a deployment by its name, an operation by its type, linked to its timeline; ids on hover. */
function Subject({ entry }: { entry: ActivityEntry }) {
  const o = entry.data.object;
  if (entry.type.startsWith('deployment.')) {
    const d = o as Deployment;
    return (
      <span title={d.id}>
        deployment <strong>{d.name}</strong>
      </span>
    );
  }
  const op = o as Operation;
  return (
    <a href={`#/operations/${encodeURIComponent(op.id)}`} title={op.id}>
      {op.type}
    </a>
  );
}

/** What changed: created, or the status (and phase) it moved to, or the fields that changed. */
const change = (entry: ActivityEntry): string => describeChange(entry.data.object, entry.data.previous);

/** The organization's audit trail: its events newest first, who made each, optionally of one deployment. */
export function ActivityPage() {
  const [deployment, setDeployment] = useState('');
  const [draft, setDraft] = useState('');
  const [page, setPage] = useState(1);
  const trail = useLoad(
    () => api('listActivity', { query: { page, per_page: PER_PAGE, ...(deployment ? { resource_id: deployment } : {}) } }),
    [deployment, page],
    page === 1 ? 5000 : undefined,
  );
  const filter = (e: Event) => {
    e.preventDefault();
    setDeployment(draft.trim());
    setPage(1);
  };
  const pages = trail.data?.pagination.pages ?? 1;
  return (
    <>
      <h1>Activity</h1>
      <p class="note">Every change to the organization's deployments and operations, newest first, and who made it.</p>
      <form class="filter" onSubmit={filter}>
        <label for="deployment-filter">Deployment id</label>
        <input
          id="deployment-filter"
          name="deployment"
          placeholder="all deployments"
          size={38}
          spellcheck={false}
          value={draft}
          onInput={(e) => setDraft(e.currentTarget.value)}
        />
        <button type="submit">Filter</button>
        {deployment && (
          <button
            type="button"
            class="secondary"
            onClick={() => {
              setDeployment('');
              setDraft('');
              setPage(1);
            }}
          >
            Show all
          </button>
        )}
      </form>
      <Alert message={trail.error} />
      <Table
        class="activity"
        caption="Changes, newest first"
        columns={['#', 'Time', 'Who', 'Record', 'Change']}
        empty={trail.data?.items.length === 0 && `No changes${deployment ? ' to this deployment' : ''} yet.`}
      >
        {trail.data?.items.map((e) => (
          <tr key={e.id}>
            <td>{e.sequence}</td>
            <td>
              <time dateTime={e.created_at}>{formatTime(e.created_at)}</time>
            </td>
            <td>
              <Actor entry={e} />
            </td>
            <td>
              <Subject entry={e} />
            </td>
            <td>{change(e)}</td>
          </tr>
        ))}
      </Table>
      <div class="actions">
        {page > 1 && (
          <button type="button" class="secondary" onClick={() => setPage(1)}>
            Newest
          </button>
        )}
        {page < pages && (
          <button type="button" class="secondary" onClick={() => setPage(page + 1)}>
            Older
          </button>
        )}
      </div>
    </>
  );
}
