/** Small conveniences over call() for the deployment and operation tests. */
import { type CallResult, call } from './fixtures.js';
import { clientRetries, eventually } from './wait.js';

export async function createDeployment(
  key: string,
  body: Record<string, unknown> = { app_type: 'airflow' },
  headers: Record<string, string> = {},
): Promise<CallResult> {
  return call('POST', '/deployments', { key, body, headers });
}

export async function operation(key: string, id: string) {
  const res = await call('GET', `/operations/${id}`, { key });
  if (res.status !== 200) throw new Error(`GET /operations/${id}: ${res.status} ${JSON.stringify(res.body.error)}`);
  return res.body.data;
}

/** The operation, or undefined for an answer docs/api.md tells a client to retry (429, 5xx), as a poller would. */
async function operationOrRetry(key: string, id: string) {
  const res = await call('GET', `/operations/${id}`, { key });
  if (res.status === 200) return res.body.data;
  if (clientRetries(res.status)) return undefined;
  throw new Error(`GET /operations/${id}: ${res.status} ${JSON.stringify(res.body.error)}`);
}

export async function deployment(key: string, id: string) {
  const res = await call('GET', `/deployments/${id}`, { key });
  return res.body.data;
}

/**
 * Waits for an operation to reach one of the statuses; past the deadline, says where it
 * was last seen (a busy machine's slowness and a stuck workflow look alike otherwise).
 */
export async function operationReaches(key: string, id: string, statuses: string[]) {
  let last: { status: string; progress?: { phase?: string; message?: string } } | undefined;
  try {
    return await eventually(
      async () => {
        const op = await operationOrRetry(key, id);
        last = op ?? last;
        return op && statuses.includes(op.status) ? op : undefined;
      },
      `operation ${id} to reach ${statuses.join('/')}`,
      60_000,
      100,
    );
  } catch (e) {
    const seen = last ? `${last.status} in ${last.progress?.phase} (${last.progress?.message})` : 'never answered';
    throw new Error(`${(e as Error).message}; last seen ${seen}`);
  }
}

/** A deployment that is ready, for tests of what needs one. */
export async function readyDeployment(key: string, body: Record<string, unknown> = { app_type: 'airflow' }) {
  const created = await createDeployment(key, body);
  if (created.status !== 202) throw new Error(`create failed: ${JSON.stringify(created.body)}`);
  await operationReaches(key, created.body.data.operation_id, ['succeeded']);
  return deployment(key, created.body.data.deployment_id);
}
