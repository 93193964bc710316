import { useState } from 'preact/hooks';
import type { ConfigChange, Deployment, Operation, Revision } from '../../../contract/schemas.js';
import { isTerminal } from '../../../contract/vocabulary.js';
import { Alert } from '../alert.js';
import { api } from '../api.js';
import { ChangeList } from '../changes.js';
import { ConfirmDialog } from '../confirm.js';
import { describeChange } from '../event-summary.js';
import { HealthBadge } from '../health.js';
import { HealthPanel } from '../health-panel.js';
import { HibernationBadge, HibernationControl, scheduleText } from '../hibernation.js';
import { formatDuration, formatTime, useLoad } from '../hooks.js';
import { MetricsPanel } from '../metrics-charts.js';
import { Table } from '../table.js';
import { EditForm, revisionTag } from './deployment-edit.js';

/** Clients poll every 2 to 5 seconds (docs/api.md, section 11). */
const POLL_MS = 3000;
export const isLive = (op: Pick<Operation, 'status'>) => !isTerminal(op.status);

async function loadDeployment(id: string) {
  const [deployment, revisions, operations, events] = await Promise.all([
    api('getDeployment', { params: { deployment_id: id } }),
    api('listRevisions', { params: { deployment_id: id }, query: { per_page: 20 } }),
    api('listOperations', { query: { resource_id: id, per_page: 20 } }),
    api('listEvents', { query: { resource_id: id, per_page: 20 } }),
  ]);
  return { deployment, revisions: revisions.items, operations: operations.items, events: events.items };
}

/** An operation this page started, followed live until it ends. */
function Following({ operationId, onEnded }: { operationId: string; onEnded: () => void }) {
  const [ended, setEnded] = useState(false);
  const op = useLoad(
    async () => {
      const o = await api('getOperation', { params: { operation_id: operationId } });
      if (!isLive(o) && !ended) {
        setEnded(true);
        onEnded();
      }
      return o;
    },
    [operationId],
    ended ? undefined : 2000,
  );
  const o = op.data;
  return (
    <section class={`panel following ${o?.status ?? ''}`} aria-live="polite" aria-label="Operation in progress">
      <strong>{o?.type ?? 'Operation'}</strong> <a href={`#/operations/${operationId}`}>{operationId}</a>{' '}
      {o && <span class={`badge ${o.status}`}>{o.status}</span>} {o && isLive(o) && <span>{o.progress.phase}</span>}
      {o && <p class="note">{o.error ? `${o.error.message}` : o.progress.message}</p>}
      <Alert message={op.error} />
    </section>
  );
}

function EnvTable({ env }: { env: Deployment['config']['env'] }) {
  const names = Object.keys(env).sort();
  if (names.length === 0) return <p class="note">No environment variables.</p>;
  return (
    <Table caption="Environment variables" columns={['Name', 'Value']}>
      {names.map((n) => {
        const e = env[n]!;
        return (
          <tr key={n}>
            <th scope="row">
              <code>{n}</code>
            </th>
            <td>{'value' in e ? <code>{e.value}</code> : <span class="badge secret">secret, not shown</span>}</td>
          </tr>
        );
      })}
    </Table>
  );
}

function RevisionsTable(props: { revisions: Revision[]; current: number; canManage: boolean; onRollback: (n: number) => void }) {
  return (
    <Table
      caption="Configuration revisions, newest first"
      columns={['Revision', 'Applied', 'Version', 'Size', 'Env', 'Origin', props.canManage && 'Actions']}
    >
      {props.revisions.map((r) => (
        <tr key={r.revision} data-revision={r.revision}>
          <th scope="row">
            {r.revision} {r.revision === props.current && <span class="badge ready">current</span>}
          </th>
          <td class="when">{formatTime(r.created_at)}</td>
          <td>{r.config.app_version}</td>
          <td>{r.config.size}</td>
          <td>{Object.keys(r.config.env).length}</td>
          <td>
            <a href={`#/operations/${r.operation_id}`}>
              {r.revision === 1 ? 'created' : r.rollback_of ? `rollback to ${r.rollback_of}` : 'update'}
            </a>
          </td>
          {props.canManage && (
            <td>
              {r.revision !== props.current && (
                <button
                  type="button"
                  class="secondary small"
                  aria-label={`Roll back to revision ${r.revision}`}
                  onClick={() => props.onRollback(r.revision)}
                >
                  Rollback
                </button>
              )}
            </td>
          )}
        </tr>
      ))}
    </Table>
  );
}

function OperationsTable({ operations }: { operations: Operation[] }) {
  return (
    <Table caption="Operations on this deployment, newest first" columns={['Operation', 'Status', 'Requested', 'Duration']}>
      {operations.map((o) => (
        <tr key={o.id} data-operation-id={o.id}>
          <th scope="row">
            <a href={`#/operations/${o.id}`}>{o.type}</a>
          </th>
          <td>
            <span class={`badge ${o.status}`}>{o.status}</span> {isLive(o) && o.progress.phase}
            {o.error && <span class="note"> {o.error.message}</span>}
          </td>
          <td class="when">{formatTime(o.requested_at)}</td>
          <td>{formatDuration(operationMs(o))}</td>
        </tr>
      ))}
    </Table>
  );
}

/** From start (or request, if it never started) to end, or to now while it runs. */
export function operationMs(o: Operation): number {
  const from = Date.parse(o.started_at ?? o.requested_at);
  return (o.ended_at ? Date.parse(o.ended_at) : Date.now()) - from;
}

/** A deployment: what it is, its configuration and revisions, what was done to it; admins change it here. */
export function DeploymentPage({ deploymentId, canManage }: { deploymentId: string; canManage: boolean }) {
  const page = useLoad(() => loadDeployment(deploymentId), [deploymentId], POLL_MS);
  const [editing, setEditing] = useState(false);
  const [following, setFollowing] = useState<string | null>(null);
  const [destroying, setDestroying] = useState(false);
  const [rollback, setRollback] = useState<{ revision: number; changes?: ConfigChange[]; error?: string } | null>(null);
  const d = page.data?.deployment;
  const running = page.data?.operations.find(isLive);
  const follow = (operationId: string) => {
    setFollowing(operationId);
    page.reload();
  };
  const previewRollback = async (revision: number) => {
    setRollback({ revision });
    try {
      const preview = await api('rollbackDeployment', {
        params: { deployment_id: deploymentId },
        query: { dry_run: 'true' },
        body: { revision },
        ifMatch: d ? revisionTag(d) : undefined,
      });
      setRollback({ revision, changes: 'changes' in preview ? preview.changes : [] });
    } catch (e) {
      setRollback({ revision, error: e instanceof Error ? e.message : String(e) });
    }
  };
  return (
    <>
      <p>
        <a href="#/deployments">← Deployments</a>
      </p>
      <h1>Deployment {d?.name ?? deploymentId}</h1>
      <Alert message={page.error} />
      {d && (
        <dl class="facts">
          <dt>Status</dt>
          <dd>
            <span class={`badge ${d.status}`}>{d.status}</span> <HibernationBadge hibernation={d.hibernation} />{' '}
            {running && (
              <a href={`#/operations/${running.id}`}>
                {running.type}: {running.progress.phase}
              </a>
            )}
          </dd>
          <dt>Health</dt>
          <dd>
            <HealthBadge health={d.health} /> since {formatTime(d.health.since)}
          </dd>
          <dt>URL</dt>
          <dd>{d.url ? <a href={d.url}>{d.url}</a> : '—'}</dd>
          <dt>App</dt>
          <dd>
            {d.app_type} {d.config.app_version}
          </dd>
          <dt>Size</dt>
          <dd>{d.config.size}</dd>
          <dt>Hibernation</dt>
          <dd>
            {d.hibernation.state}
            {d.hibernation.until && `, held until ${formatTime(d.hibernation.until)}`}; {scheduleText(d.config.hibernation)}
          </dd>
          <dt>Revision</dt>
          <dd>
            {d.revision}, applied {formatTime(d.updated_at)}
          </dd>
          <dt>Created</dt>
          <dd>{formatTime(d.created_at)}</dd>
          <dt>Id</dt>
          <dd>
            <code>{d.id}</code>
          </dd>
        </dl>
      )}
      {d && canManage && d.status !== 'destroyed' && (
        <div class="actions start">
          {d.status === 'ready' && !editing && (
            <button type="button" onClick={() => setEditing(true)}>
              Edit configuration
            </button>
          )}
          <HibernationControl deployment={d} busy={Boolean(running)} onStarted={(op) => (op ? follow(op) : page.reload())} />
          {d.status !== 'destroying' && (
            <button type="button" class="danger" onClick={() => setDestroying(true)}>
              Destroy
            </button>
          )}
        </div>
      )}
      {!canManage && <p class="note">You can see this deployment; an admin edits, rolls back and destroys it.</p>}
      {following && <Following key={following} operationId={following} onEnded={page.reload} />}
      {d && editing && (
        <EditForm
          deployment={d}
          onCancel={() => setEditing(false)}
          onApplied={(operationId) => {
            setEditing(false);
            if (operationId) follow(operationId);
            else page.reload();
          }}
        />
      )}
      {d && <HealthPanel deploymentId={deploymentId} health={d.health} />}
      {d && <MetricsPanel deploymentId={deploymentId} />}
      {d && (
        <>
          <h2>Environment</h2>
          <EnvTable env={d.config.env} />
        </>
      )}
      <h2>Revisions</h2>
      {page.data && d && (
        <RevisionsTable
          revisions={page.data.revisions}
          current={d.revision}
          canManage={canManage && d.status === 'ready'}
          onRollback={previewRollback}
        />
      )}
      <h2>Operations</h2>
      {page.data && <OperationsTable operations={page.data.operations} />}
      <h2>Events</h2>
      <ol class="timeline">
        {page.data?.events.map((e) => (
          <li key={e.id}>
            <time dateTime={e.created_at}>{formatTime(e.created_at)}</time> <strong>{e.type}</strong>{' '}
            <span class="change">{describeChange(e.data.object, e.data.previous)}</span>
          </li>
        ))}
      </ol>
      <ConfirmDialog
        open={destroying}
        title={`Destroy “${d?.name}”?`}
        confirmLabel="Destroy deployment"
        danger
        onClose={() => setDestroying(false)}
        onConfirm={async () => {
          const started = await api('destroyDeployment', { params: { deployment_id: deploymentId } });
          follow(started.operation_id);
        }}
      >
        <p>
          Its resources are removed and {d?.url ? <code>{d.url}</code> : 'its URL'} stops answering. An operation in progress on it is
          canceled. This cannot be undone.
        </p>
      </ConfirmDialog>
      <ConfirmDialog
        open={rollback !== null}
        title={rollback ? `Roll back to revision ${rollback.revision}?` : 'Roll back'}
        confirmLabel="Roll back"
        onClose={() => setRollback(null)}
        onConfirm={async () => {
          const started = await api('rollbackDeployment', {
            params: { deployment_id: deploymentId },
            body: { revision: rollback!.revision },
            ifMatch: d ? revisionTag(d) : undefined,
          });
          if ('operation_id' in started) follow(started.operation_id);
          else page.reload();
        }}
      >
        <p>The configuration of that revision is applied as a new revision (secret values included).</p>
        {rollback?.changes ? (
          <ChangeList changes={rollback.changes} />
        ) : (
          !rollback?.error && <p class="note">Checking what would change…</p>
        )}
        <Alert message={rollback?.error} />
      </ConfirmDialog>
    </>
  );
}
