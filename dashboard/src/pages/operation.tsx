import { useState } from 'preact/hooks';
import type { Operation } from '../../../contract/schemas.js';
import { Alert } from '../alert.js';
import { api } from '../api.js';
import { ConfirmDialog } from '../confirm.js';
import { formatDuration, formatTime, useLoad } from '../hooks.js';
import { isLive, operationMs } from './deployment.js';

const LOG_PAGE = 100;

/** The operation's last LOG_PAGE log lines (decision 45): its last page, and the one before when that is short. */
async function lastLogLines(operationId: string) {
  const params = { operation_id: operationId };
  const first = await api('listOperationLogs', { params, query: { page: 1, per_page: LOG_PAGE } });
  const { pages, total } = first.pagination;
  if (pages <= 1) return { lines: first.items, total };
  const [before, last] = await Promise.all([
    api('listOperationLogs', { params, query: { page: pages - 1, per_page: LOG_PAGE } }),
    api('listOperationLogs', { params, query: { page: pages, per_page: LOG_PAGE } }),
  ]);
  return { lines: [...before.items, ...last.items].slice(-LOG_PAGE), total };
}

/**
 * An operation, its failure explained (phase, retry hint) and its log, refreshed while it
 * runs (decision 45), and its timeline: every change of it, from the events feed
 * (decision 37), oldest first.
 */
export function OperationPage({ operationId, canManage }: { operationId: string; canManage: boolean }) {
  const [canceling, setCanceling] = useState(false);
  const op = useLoad(
    async () => {
      const [operation, events, log] = await Promise.all([
        api('getOperation', { params: { operation_id: operationId } }),
        api('listEvents', { query: { per_page: 100, resource_id: operationId } }),
        lastLogLines(operationId),
      ]);
      return { operation, timeline: [...events.items].reverse(), log };
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
          {o.error && (
            <>
              <dt>Error</dt>
              <dd class="operation-error">
                <code>{o.error.code}</code> in phase <strong data-testid="error-phase">{o.error.phase}</strong>: {o.error.message}
              </dd>
              <dt>Retry</dt>
              <dd data-testid="error-retryable">
                {o.error.retryable
                  ? 'Sending the same request again may succeed.'
                  : 'Sending the same request again will fail the same way.'}
              </dd>
            </>
          )}
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
      <h2>Log {done ? '' : '(following)'}</h2>
      {op.data && op.data.log.total > op.data.log.lines.length && (
        <p class="muted">
          The last {op.data.log.lines.length} of {op.data.log.total} lines.
        </p>
      )}
      <ol class="operation-log" data-testid="operation-log">
        {op.data?.log.lines.map((l) => (
          <li key={l.sequence} class={`log-${l.level}`}>
            <span class="log-seq">{l.sequence}</span> <time dateTime={l.time}>{formatTime(l.time)}</time>{' '}
            <span class={`badge log-${l.level}`}>{l.level}</span> <strong>{l.phase}</strong> — {l.message}
          </li>
        ))}
      </ol>
      <h2>Timeline</h2>
      <ol class="timeline">
        {op.data?.timeline.map((e) => {
          const rec = e.data.object as Operation;
          return (
            <li key={e.id}>
              <time dateTime={e.created_at}>{formatTime(e.created_at)}</time> <span class={`badge ${rec.status}`}>{rec.status}</span>{' '}
              {/* A phase named like the status (queued, succeeded) would only say it twice. */}
              {rec.progress.phase !== rec.status && <strong>{rec.progress.phase}</strong>} — {rec.progress.message}
            </li>
          );
        })}
      </ol>
    </>
  );
}
