/** deployctl deployments list | get | create | delete | update | revisions | rollback | hibernate | wake. */
import { APP_TYPES, DEPLOYMENT_STATUSES } from '../../../contract/vocabulary.js';
import type { Accepted, Deployment, UpdateOptions, UpdateResult } from '../../client.js';
import { oneOf, optionalWait, pageQuery, positiveInt, UsageError, type Values, type WaitLimit } from '../args.js';
import { type Command, itemCommand, listCommand, type Run } from '../command.js';
import { configPatch } from '../config-patch.js';
import { EXIT, err, out } from '../context.js';
import { json, showChanges, showDeployment } from '../format.js';
import { follow, operationOutcome } from '../progress.js';

/**
 * What create, delete, update and rollback share once the API accepted them: without --wait, the accepted
 * operation and how to follow it; with --wait (no time limit unless --timeout), the
 * progress, then the deployment it left.
 */
export async function reportAccepted(
  r: Run,
  accepted: Accepted,
  wait: WaitLimit | undefined,
  how: { being: string; label: string; done(d: Deployment): string },
): Promise<number> {
  const { api, values, ctx } = r;
  const started = `Deployment ${accepted.deployment_id} is being ${how.being} (operation ${accepted.operation_id}).`;
  if (wait === undefined) {
    if (values.json) json(ctx, accepted);
    else {
      out(ctx, started);
      out(ctx, `Follow it with: deployctl operations wait ${accepted.operation_id}`);
    }
    return EXIT.ok;
  }
  if (!values.json) err(ctx, started);
  const op = await follow(r, accepted.operation_id, `${how.label} ${accepted.deployment_id}`, wait);
  const deployment = await api.getDeployment(accepted.deployment_id);
  if (values.json) json(ctx, { deployment, operation: op });
  else if (op.status === 'succeeded') out(ctx, how.done(deployment));
  return await operationOutcome(r, op);
}

/** What update and rollback take besides their own: --if-match, --dry-run (which does not wait), --idempotency-key. */
function updateOptions(values: Values): { opts: UpdateOptions; wait: WaitLimit | undefined } {
  const wait = optionalWait(values);
  if (values['dry-run'] && wait) throw new UsageError('--dry-run starts nothing to wait for: --wait does not go with it');
  const ifMatch = values['if-match'] === '*' ? '*' : positiveInt('if-match', values['if-match']);
  return { opts: { ifMatch, dryRun: values['dry-run'], idempotencyKey: values['idempotency-key'] }, wait };
}

const UPDATE_OPTIONS = ['if-match', 'dry-run', 'idempotency-key', 'wait', 'timeout'] as const;

/** An update's or a rollback's answer: the dry run's changes, "No change.", or the operation it started. */
function reportUpdate(r: Run, result: UpdateResult, wait: WaitLimit | undefined): Promise<number> | number {
  const { values, ctx } = r;
  if (result.outcome === 'accepted')
    return reportAccepted(r, result.accepted, wait, {
      being: 'updated',
      label: 'updating',
      done: (d) => `Deployment ${d.name} (${d.id}) is at revision ${d.revision}.`,
    });
  if (values.json) json(ctx, result.outcome === 'dry_run' ? { deployment: result.deployment, changes: result.changes } : result.deployment);
  else out(ctx, showChanges(result.outcome === 'dry_run' ? result.changes : []));
  return EXIT.ok;
}

/** Decision 50: hibernate or wake, with an optional hold's end; "already …" when there is nothing to do. */
function hibernationCommand(kind: 'hibernate' | 'wake'): Command {
  return {
    args: ['deployment-id'],
    options: ['until', 'idempotency-key', 'wait', 'timeout'],
    async run(r) {
      const { values, ctx } = r;
      const wait = optionalWait(values);
      const until = values.until;
      if (until !== undefined && Number.isNaN(Date.parse(until)))
        throw new UsageError('--until must be a timestamp such as 2026-11-28T19:00:00Z');
      const body = until === undefined ? {} : { until: new Date(until).toISOString() };
      const opts = { idempotencyKey: values['idempotency-key'] };
      const id = r.args[0]!;
      const result = kind === 'hibernate' ? await r.api.hibernateDeployment(id, body, opts) : await r.api.wakeDeployment(id, body, opts);
      if (result.outcome === 'accepted')
        return reportAccepted(r, result.accepted, wait, {
          being: kind === 'hibernate' ? 'hibernated' : 'woken',
          label: kind === 'hibernate' ? 'hibernating' : 'waking',
          done: (d) => `Deployment ${d.name} (${d.id}) is ${d.hibernation.state}.`,
        });
      if (values.json) json(ctx, result.deployment);
      else out(ctx, `Deployment ${result.deployment.name} (${result.deployment.id}) is already ${result.deployment.hibernation.state}.`);
      return EXIT.ok;
    },
  };
}

export const deploymentCommands: Record<string, Command> = {
  'deployments list': listCommand({
    options: ['status'],
    list: ({ api, values }) => api.listDeployments({ status: oneOf('status', values.status, DEPLOYMENT_STATUSES), ...pageQuery(values) }),
    header: ['ID', 'NAME', 'APP', 'STATUS', 'CREATED', 'URL'],
    row: (d) => [d.id, d.name, d.app_type, d.status, d.created_at, d.url ?? ''],
    empty: 'No deployments.',
  }),
  'deployments get': itemCommand('deployment-id', (api, id) => api.getDeployment(id), showDeployment),
  'deployments create': {
    args: [],
    options: ['app-type', 'name', 'environment-id', 'idempotency-key', 'wait', 'timeout'],
    async run(r) {
      const { values } = r;
      const appType = oneOf('app-type', values['app-type'], APP_TYPES);
      if (!appType) throw new UsageError('--app-type is required (airflow or superset)');
      const wait = optionalWait(values);
      const accepted = await r.api.createDeployment(
        {
          app_type: appType,
          ...(values.name !== undefined ? { name: values.name } : {}),
          ...(values['environment-id'] !== undefined ? { environment_id: values['environment-id'] } : {}),
        },
        { idempotencyKey: values['idempotency-key'] },
      );
      return reportAccepted(r, accepted, wait, {
        being: 'created',
        label: 'creating',
        done: (d) => `Deployment ${d.name} (${d.id}) is ${d.status}: ${d.url ?? '(no url)'}`,
      });
    },
  },
  'deployments delete': {
    args: ['deployment-id'],
    options: ['wait', 'timeout'],
    async run(r) {
      const wait = optionalWait(r.values);
      const accepted = await r.api.deleteDeployment(r.args[0]!);
      return reportAccepted(r, accepted, wait, {
        being: 'destroyed',
        label: 'destroying',
        done: (d) => `Deployment ${d.name} (${d.id}) is ${d.status}.`,
      });
    },
  },
  'deployments update': {
    args: ['deployment-id'],
    options: ['size', 'app-version', 'env', 'secret', 'unset', ...UPDATE_OPTIONS],
    async run(r) {
      const patch = configPatch(r.values);
      const { opts, wait } = updateOptions(r.values);
      return reportUpdate(r, await r.api.updateDeployment(r.args[0]!, patch, opts), wait);
    },
  },
  'deployments revisions': listCommand({
    arg: 'deployment-id',
    list: ({ api, args, values }) => api.listRevisions(args[0]!, pageQuery(values)),
    header: ['REVISION', 'APPLIED', 'APP_VERSION', 'SIZE', 'ENV', 'ROLLBACK_OF'],
    row: (v) => [
      String(v.revision),
      v.created_at,
      v.config.app_version,
      v.config.size,
      Object.keys(v.config.env).sort().join(',') || '-',
      v.rollback_of === null ? '-' : String(v.rollback_of),
    ],
  }),
  'deployments rollback': {
    args: ['deployment-id'],
    options: ['revision', ...UPDATE_OPTIONS],
    async run(r) {
      const revision = positiveInt('revision', r.values.revision);
      if (revision === undefined) throw new UsageError('--revision is required (see deployctl deployments revisions <deployment-id>)');
      const { opts, wait } = updateOptions(r.values);
      return reportUpdate(r, await r.api.rollbackDeployment(r.args[0]!, revision, opts), wait);
    },
  },
  'deployments hibernate': hibernationCommand('hibernate'),
  'deployments wake': hibernationCommand('wake'),
};
