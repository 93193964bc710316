import { useState } from 'preact/hooks';
import type { Operation } from '../../../functions/core/schemas.js';
import { Alert } from '../alert.js';
import { api } from '../api.js';
import { ConfirmDialog } from '../confirm.js';
import { formatDuration, formatTime, useLoad } from '../hooks.js';
import { isLive, operationMs } from './deployment.js';

/** An operation and its timeline: every change of it, from the events feed (decision 37), oldest first. */
export function OperationPage({ operationId, canManage }: { operationId: string; canManage: boolean }) {
  const [canceling, setCanceling] = useState(false);
  const op = useLoad(
    async () => {
      const [operation, events] = await Promise.all([
        api('getOperation', { params: { operation_id: operationId } }),
        api('listEvents', { query: { per_page: 100, resource_id: operationId } }),
      ]);
      return { operation, timeline: [...events.items].reverse() };
    },
    [operationId],
    2000,
  );
  const o = op.data?.operation;
  const done = o ? !isLive(o) : false;
  return (
    <>
      <p>{o ? <a href={`#/deployments/${o.resource.id}`}>← Its deployment</a> : <a href="#/deployments">← Deployments</a>}</p>
      <h1>
        Operation <code>{operationId}</code>
      </h1>
      <Alert message={op.error} />
      {o && (
        <dl class="facts">
          <dt>Type</dt>
          <dd>{o.type}</dd>
          <dt>Status</dt>
          <dd>
            <span class={`badge ${o.status}`}>{o.status}</span> {done ? '' : '(live)'}
          </dd>
          <dt>Phase</dt>
          <dd>{o.progress.phase}</dd>
          <dt>Message</dt>
          <dd>{o.progress.message}</dd>
          <dt>Deployment</dt>
          <dd>
            <a href={`#/deployments/${o.resource.id}`}>
              <code>{o.resource.id}</code>
            </a>
          </dd>
          <dt>Requested</dt>
          <dd>{formatTime(o.requested_at)}</dd>
          <dt>Started</dt>
          <dd>{formatTime(o.started_at)}</dd>
          <dt>Ended</dt>
          <dd>{formatTime(o.ended_at)}</dd>
          <dt>Duration</dt>
          <dd>
            {formatDuration(operationMs(o))}
            {done ? '' : ' so far'}
          </dd>
        </dl>
      )}
      {o && canManage && !done && (
        <div class="actions start">
          <button type="button" class="danger" onClick={() => setCanceling(true)}>
            Cancel operation
          </button>
        </div>
      )}
      <ConfirmDialog
        open={canceling}
        title="Cancel this operation?"
        confirmLabel="Cancel operation"
        danger
        onClose={() => setCanceling(false)}
        onConfirm={async () => {
          await api('cancelOperation', { params: { operation_id: operationId } });
          op.reload();
        }}
      >
        <p>
          It stops where it is. A canceled create leaves its deployment failed; a canceled update leaves the deployment on its current
          configuration.
        </p>
      </ConfirmDialog>
      <h2>Timeline</h2>
      <ol class="timeline">
        {op.data?.timeline.map((e) => {
          const rec = e.data.object as Operation;
          return (
            <li key={e.id}>
              <time dateTime={e.created_at}>{formatTime(e.created_at)}</time> <span class={`badge ${rec.status}`}>{rec.status}</span>{' '}
              <strong>{rec.progress.phase}</strong> — {rec.progress.message}
            </li>
          );
        })}
      </ol>
    </>
  );
}
