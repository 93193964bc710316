import type { Deployment, Operation } from '../../../functions/core/schemas.js';
import { Alert } from '../alert.js';
import { api } from '../api.js';
import { formatTime, useLoad } from '../hooks.js';

/** Clients poll every 2 to 5 seconds (docs/api.md, section 11). */
const POLL_MS = 3000;

interface Row {
  deployment: Deployment;
  /** The operation under way, for a deployment that is changing. */
  operation?: Operation;
}

async function loadRows(): Promise<Row[]> {
  const { items } = await api('listDeployments', { query: { per_page: 100 } });
  return Promise.all(
    items.map(async (deployment) => {
      const opId = deployment.links.operation?.split('/').pop();
      const changing = deployment.status === 'provisioning' || deployment.status === 'destroying';
      return { deployment, operation: changing && opId ? await api('getOperation', { params: { operation_id: opId } }) : undefined };
    }),
  );
}

export function DeploymentsPage() {
  const rows = useLoad(loadRows, [], POLL_MS);
  return (
    <>
      <h1>Deployments</h1>
      <p class="note">Updated every {POLL_MS / 1000} seconds.</p>
      <Alert message={rows.error} />
      <div class="table-wrap">
        <table>
          <caption class="sr-only">Deployments of the organization, newest first</caption>
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">App</th>
              <th scope="col">Status</th>
              <th scope="col">Phase</th>
              <th scope="col">URL</th>
              <th scope="col">Created</th>
            </tr>
          </thead>
          <tbody>
            {rows.data?.length === 0 && (
              <tr>
                <td colSpan={6}>No deployments yet.</td>
              </tr>
            )}
            {rows.data?.map(({ deployment: d, operation: op }) => {
              const opId = d.links.operation?.split('/').pop();
              return (
                <tr key={d.id} data-deployment-id={d.id}>
                  <th scope="row">{d.name}</th>
                  <td>{d.app_type}</td>
                  <td>
                    <span class={`badge ${d.status}`}>{d.status}</span>
                  </td>
                  <td>{opId ? <a href={`#/operations/${opId}`}>{op ? op.progress.phase : 'last operation'}</a> : '—'}</td>
                  <td>{d.url ? <a href={d.url}>{d.url}</a> : '—'}</td>
                  <td>{formatTime(d.created_at)}</td>
                </tr>
              );
            })}
          </tbody>
        </table>
      </div>
    </>
  );
}
