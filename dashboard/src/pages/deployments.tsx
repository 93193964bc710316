import { useState } from 'preact/hooks';
import type { Deployment, Operation } from '../../../contract/schemas.js';
import { APP_TYPES, SIZES } from '../../../contract/vocabulary.js';
import { Alert } from '../alert.js';
import { api } from '../api.js';
import { HealthBadge } from '../health.js';
import { HibernationBadge } from '../hibernation.js';
import { formatTime, messageOf, useLoad } from '../hooks.js';
import { Table } from '../table.js';

/** Clients poll every 2 to 5 seconds (docs/api.md, section 11). */
const POLL_MS = 3000;

interface Row {
  deployment: Deployment;
  /** The operation under way on it, if any: its phase is shown while it runs, never after. */
  operation?: Operation;
}

async function loadRows(): Promise<Row[]> {
  // What runs now, in two small lists, rather than each deployment's last operation one by one.
  const [list, running, queued] = await Promise.all([
    api('listDeployments', { query: { per_page: 100 } }),
    api('listOperations', { query: { status: 'running', per_page: 100 } }),
    api('listOperations', { query: { status: 'queued', per_page: 100 } }),
  ]);
  const live = new Map([...queued.items, ...running.items].map((o) => [o.resource.id, o]));
  return list.items.map((deployment) => ({ deployment, operation: live.get(deployment.id) }));
}

function CreateForm({ onCreated }: { onCreated: (deploymentId: string) => void }) {
  const [error, setError] = useState('');
  const [busy, setBusy] = useState(false);
  const submit = async (e: Event) => {
    e.preventDefault();
    const data = new FormData(e.currentTarget as HTMLFormElement);
    const name = String(data.get('name') ?? '').trim();
    setError('');
    setBusy(true);
    try {
      const started = await api('createDeployment', {
        body: {
          app_type: String(data.get('app_type')) as (typeof APP_TYPES)[number],
          ...(name ? { name } : {}),
          config: { size: String(data.get('size')) as (typeof SIZES)[number] },
        },
      });
      onCreated(started.deployment_id);
    } catch (err) {
      setError(messageOf(err));
    } finally {
      setBusy(false);
    }
  };
  return (
    <form class="panel create-deployment" onSubmit={submit}>
      <h2>New deployment</h2>
      <div class="fields">
        <label for="new-name">Name (optional)</label>
        <input id="new-name" name="name" maxLength={63} placeholder="analytics" />
        <label for="new-app">App</label>
        <select id="new-app" name="app_type">
          {APP_TYPES.map((t) => (
            <option key={t}>{t}</option>
          ))}
        </select>
        <label for="new-size">Size</label>
        <select id="new-size" name="size">
          {SIZES.map((s) => (
            <option key={s}>{s}</option>
          ))}
        </select>
      </div>
      <Alert message={error} />
      <button type="submit" disabled={busy}>
        Create deployment
      </button>
    </form>
  );
}

export function DeploymentsPage({ canManage }: { canManage: boolean }) {
  const rows = useLoad(loadRows, [], POLL_MS);
  const [showDestroyed, setShowDestroyed] = useState(false);
  const [creating, setCreating] = useState(false);
  const shown = rows.data?.filter((r) => showDestroyed || r.deployment.status !== 'destroyed');
  const hidden = (rows.data?.length ?? 0) - (shown?.length ?? 0);
  return (
    <>
      <h1>Deployments</h1>
      {canManage &&
        (creating ? (
          <CreateForm onCreated={(id) => (location.hash = `#/deployments/${id}`)} />
        ) : (
          <p>
            <button type="button" onClick={() => setCreating(true)}>
              New deployment
            </button>
          </p>
        ))}
      <div class="filter">
        <label class="check">
          <input
            type="checkbox"
            checked={showDestroyed}
            onChange={(e) => setShowDestroyed((e.currentTarget as HTMLInputElement).checked)}
          />{' '}
          Show destroyed deployments{hidden ? ` (${hidden} hidden)` : ''}
        </label>
        <span class="note">Updated every {POLL_MS / 1000} seconds.</span>
      </div>
      <Alert message={rows.error} />
      <Table
        caption="Deployments of the organization, newest first"
        columns={['Name', 'App', 'Status', 'URL', 'Created']}
        empty={shown?.length === 0 && `No deployments${hidden ? ' that are not destroyed' : ''} yet.`}
      >
        {shown?.map(({ deployment: d, operation: op }) => (
          <tr key={d.id} data-deployment-id={d.id}>
            <th scope="row">
              <a href={`#/deployments/${d.id}`}>{d.name}</a>
            </th>
            <td>
              {d.app_type} {d.config.app_version}
            </td>
            <td>
              <span class={`badge ${d.status}`}>{d.status}</span>{' '}
              {/* A hibernated deployment's health is `hibernated`: its badge says it, with the hold's end. */}
              {d.status === 'ready' &&
                (d.hibernation.state === 'hibernated' ? (
                  <HibernationBadge hibernation={d.hibernation} />
                ) : (
                  <HealthBadge health={d.health} />
                ))}{' '}
              {op && (
                <a href={`#/operations/${op.id}`} class="phase">
                  {op.progress.phase}
                </a>
              )}
            </td>
            <td class="url">{d.url ? <a href={d.url}>{d.url}</a> : '—'}</td>
            <td class="when">{formatTime(d.created_at)}</td>
          </tr>
        ))}
      </Table>
    </>
  );
}
