/**
 * Contention on one organization (the benchmark's goal 4, docs/benchmark.md): many
 * parallel `POST /deployments/{id}/dag-syncs` on one ready deployment, spread round-robin over
 * several keys of the same organization, all sent at once. Plain HTTP against any base
 * URL (the local API server, `npm start`, a deployed stage), so the benchmark and an
 * integration test drive it the same way.
 */

export interface ContentionOptions {
  /** Up to and including the API prefix, e.g. `http://127.0.0.1:3000/api/v1`. */
  baseUrl: string;
  deploymentId: string;
  /** API keys of one organization with deployments:write; request i uses keys[i % keys.length]. */
  keys: readonly string[];
  requests: number;
}

export interface ContentionAnswer {
  status: number;
  /** `error.code` of an error answer, the operation id of an accepted one. */
  code?: string;
  operationId?: string;
  ms: number;
}

export interface ContentionResult {
  requests: number;
  /** How many answers had each status code. */
  byStatus: Record<number, number>;
  /** How many error answers had each error code (`429 RATE_LIMITED`, `409 …`, `500 INTERNAL_ERROR`). */
  byCode: Record<string, number>;
  answers: ContentionAnswer[];
  /** From the first request sent to the last answer received. */
  wallMs: number;
  /** Accepted requests (202) per second of wall time: the organization's sustained write rate. */
  writesPerSecond: number;
  /** Answers ≥ 500: none may be caused by contention. */
  serverErrors: number;
}

/** What request i sends: a DAG sync of the deployment, or (a burst of creates) a new deployment. */
type Request = (i: number) => { path: string; body: string };
const dagSync =
  (o: ContentionOptions): Request =>
  () => ({ path: `/deployments/${o.deploymentId}/dag-syncs`, body: '{}' });

async function send(o: Pick<ContentionOptions, 'baseUrl' | 'keys'>, i: number, request: Request): Promise<ContentionAnswer> {
  const t0 = performance.now();
  const { path, body: sent } = request(i);
  const res = await fetch(`${o.baseUrl}${path}`, {
    method: 'POST',
    headers: { 'X-API-Key': o.keys[i % o.keys.length]!, 'Content-Type': 'application/json' },
    body: sent,
  });
  const text = await res.text();
  const ms = performance.now() - t0;
  let body: { data?: { operation_id?: string }; error?: { code?: string } } = {};
  try {
    body = JSON.parse(text) as typeof body;
  } catch {
    // A non-JSON answer is reported by its status alone.
  }
  return { status: res.status, code: body.error?.code, operationId: body.data?.operation_id, ms };
}

/** Sends every request at once and waits for all the answers. */
export const runContention = (o: ContentionOptions) => runAtOnce(o, dagSync(o));

/**
 * A burst of creates in one organization (decision 300's goal): `requests` concurrent
 * `POST /deployments`, each with a name of its own, all sent at once. Goal: every one 202.
 */
export const runCreateBurst = (o: Omit<ContentionOptions, 'deploymentId'>, run: string) =>
  runAtOnce(o, (i) => ({ path: '/deployments', body: JSON.stringify({ app_type: 'airflow', name: `burst-${run}-${i}` }) }));

async function runAtOnce(o: Omit<ContentionOptions, 'deploymentId'>, request: Request): Promise<ContentionResult> {
  if (o.keys.length === 0) throw new Error('runContention needs at least one key');
  const t0 = performance.now();
  const answers = await Promise.all(Array.from({ length: o.requests }, (_, i) => send(o, i, request)));
  const wallMs = performance.now() - t0;
  const byStatus: Record<number, number> = {};
  const byCode: Record<string, number> = {};
  for (const a of answers) {
    byStatus[a.status] = (byStatus[a.status] ?? 0) + 1;
    if (a.code) byCode[a.code] = (byCode[a.code] ?? 0) + 1;
  }
  const accepted = byStatus[202] ?? 0;
  return {
    requests: o.requests,
    byStatus,
    byCode,
    answers,
    wallMs,
    writesPerSecond: accepted / (wallMs / 1000),
    serverErrors: answers.filter((a) => a.status >= 500).length,
  };
}
