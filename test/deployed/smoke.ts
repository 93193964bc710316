/**
 * The smoke suite for a running stage (docs/upgrade.md): a few black-box checks over HTTP
 * with one API key, as a client makes them. It creates one deployment, waits for it,
 * reads it and destroys it; a deployment it created is destroyed even when a later check
 * fails, so a failed run leaves nothing behind on the stage. The key is never printed.
 */
import { randomUUID } from 'node:crypto';
import type { PlatformChecks } from './platform-checks.js';

export interface SmokeOptions {
  /** The stage's base URL, the stack output ApiUrl (ending in /api/v1). */
  baseUrl: string;
  key: string;
  /** How long each operation may take: a real platform's phases take minutes. */
  operationTimeoutMs: number;
  /** One line per check passed. */
  report(line: string): void;
  /** The ECS platform's checks, when the stage runs `platform=ecs` (platform-checks.ts). */
  platform?: PlatformChecks;
}

export class SmokeFailure extends Error {}

const TERMINAL = ['succeeded', 'failed', 'canceled'];

interface Answer {
  status: number;
  body: any;
}

export async function runSmoke(o: SmokeOptions): Promise<void> {
  const base = o.baseUrl.replace(/\/+$/, '');
  const call = async (method: string, path: string, body?: unknown, expected = 200): Promise<Answer> => {
    const giveUp = Date.now() + o.operationTimeoutMs;
    for (;;) {
      const res = await fetch(`${base}${path}`, {
        method,
        headers: {
          'X-API-Key': o.key,
          ...(body !== undefined ? { 'Content-Type': 'application/json' } : {}),
          // A retried POST (after a 429) is then the same request, not a second deployment.
          ...(method === 'POST' ? { 'Idempotency-Key': idempotencyKey } : {}),
        },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const text = await res.text();
      // The stage's own limits (docs/api.md): wait as it says, then ask again.
      if (res.status === 429 && Date.now() < giveUp) {
        await new Promise((r) => setTimeout(r, Number(res.headers.get('Retry-After') ?? '1') * 1000));
        continue;
      }
      let parsed: unknown;
      try {
        parsed = JSON.parse(text);
      } catch {
        throw new SmokeFailure(`${method} ${path} answered ${res.status} with a body that is not JSON: ${text.slice(0, 200)}`);
      }
      if (res.status !== expected)
        throw new SmokeFailure(`${method} ${path} answered ${res.status}, not ${expected}: ${text.slice(0, 500)}`);
      return { status: res.status, body: parsed };
    }
  };
  let idempotencyKey = randomUUID();

  /** GET /operations/{id}/wait until the operation is terminal; it must have succeeded. */
  const waitFor = async (operationId: string, what: string) => {
    const deadline = Date.now() + o.operationTimeoutMs;
    for (;;) {
      const op = (await call('GET', `/operations/${operationId}/wait?timeout=20`)).body.data;
      if (TERMINAL.includes(op.status)) {
        if (op.status !== 'succeeded')
          throw new SmokeFailure(`${what}: operation ${operationId} ended ${op.status}: ${JSON.stringify(op.progress)}`);
        return op;
      }
      if (Date.now() > deadline)
        throw new SmokeFailure(
          `${what}: operation ${operationId} still ${op.status} (${op.progress.phase}) after ${o.operationTimeoutMs / 1000} s`,
        );
    }
  };

  const me = (await call('GET', '/key')).body.data;
  if (me.hint !== `svc_sk_live_…${o.key.slice(-4)}`) throw new SmokeFailure(`GET /key describes another key: ${me.hint}`);
  o.report(`GET /key: ${me.id} of ${me.org_id}, scopes ${me.scopes.join(',')}`);

  const environments = (await call('GET', '/environments')).body.data.items as { id: string }[];
  if (!environments.length) throw new SmokeFailure('GET /environments listed no environment');
  o.report(`GET /environments: ${environments.map((e) => e.id).join(', ')}`);

  const name = `smoke-${Date.now()}`;
  const createdAt = Date.now();
  const created = (await call('POST', '/deployments', { app_type: 'airflow', name }, 202)).body.data;
  const deploymentId: string = created.deployment_id;
  o.report(`POST /deployments: ${deploymentId} (${name}), operation ${created.operation_id}`);
  let destroyed = false;
  try {
    await waitFor(created.operation_id, 'create');
    o.report(`GET /operations/{id}/wait: the create operation succeeded in ${Math.round((Date.now() - createdAt) / 1000)} s`);

    const deployment = (await call('GET', `/deployments/${deploymentId}`)).body.data;
    if (deployment.status !== 'ready' || deployment.name !== name)
      throw new SmokeFailure(`GET /deployments/${deploymentId}: ${deployment.status} ${deployment.name}, not ready ${name}`);
    o.report(`GET /deployments/{id}: ready at ${deployment.url}`);
    for (const line of (await o.platform?.afterCreate(deploymentId, deployment.url)) ?? []) o.report(line);

    idempotencyKey = randomUUID();
    const destroy = (await call('DELETE', `/deployments/${deploymentId}`, undefined, 202)).body.data;
    destroyed = true;
    await waitFor(destroy.operation_id, 'destroy');
    const after = (await call('GET', `/deployments/${deploymentId}`)).body.data;
    if (after.status !== 'destroyed') throw new SmokeFailure(`GET /deployments/${deploymentId} after its destroy: ${after.status}`);
    o.report('DELETE /deployments/{id}: destroyed');
    for (const line of (await o.platform?.afterDestroy(deploymentId, deployment.url)) ?? []) o.report(line);
  } finally {
    // Whatever failed, the deployment this run created does not stay on the stage.
    if (!destroyed) await call('DELETE', `/deployments/${deploymentId}`, undefined, 202).catch(() => undefined);
  }
}
