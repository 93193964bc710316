import type { Deployment } from '../../contract/schemas.js';
import { Alert } from './alert.js';
import { api } from './api.js';
import { HealthBadge } from './health.js';
import { formatTime } from './hooks.js';
import { useLiveLoad } from './live-load.js';
import { Table } from './table.js';

/** The service checks every HEALTH_CHECK_SECONDS (60 by default); a change shows here within a few seconds of the check (decision 292). */
const HEALTH_POLL_MS = 10_000;

/**
 * A deployment's health components (decision 48): each one's status, since when and why,
 * following the checks while the page is open. It loads again at once when the record's
 * rolled-up health changes (the page polls the record).
 */
export function HealthPanel({ deploymentId, health }: { deploymentId: string; health: Deployment['health'] }) {
  const report = useLiveLoad(
    () => api('getDeploymentHealth', { params: { deployment_id: deploymentId } }),
    [deploymentId, health.status, health.since],
    HEALTH_POLL_MS,
  );
  const r = report.data;
  const empty =
    r && r.components.length === 0
      ? r.status === 'hibernated'
        ? 'Hibernated: no component runs while it sleeps.'
        : 'No components to show: the deployment is not ready, or has not been checked yet.'
      : false;
  return (
    <section class="health-panel" aria-labelledby="health-heading">
      <h2 id="health-heading">Health</h2>
      <p class="note">
        {r ? (
          <>
            <HealthBadge health={r} /> since {formatTime(r.since)}; last checked {r.checked_at ? formatTime(r.checked_at) : 'never'}
          </>
        ) : (
          'Loading…'
        )}
      </p>
      <Alert message={report.error} />
      {r && (
        <Table caption="Health of each component" columns={['Component', 'Status', 'Since', 'Message']} empty={empty} class="components">
          {r.components.map((c) => (
            <tr key={c.name} data-component={c.name}>
              <th scope="row">
                <code>{c.name}</code>
              </th>
              <td>
                <span class={`badge health-${c.status}`}>{c.status}</span>
              </td>
              <td class="when">{formatTime(c.since)}</td>
              <td>{c.message ?? '—'}</td>
            </tr>
          ))}
        </Table>
      )}
    </section>
  );
}
