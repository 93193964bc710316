/** deployctl deployments list | get | create | delete. */
import { APP_TYPES, DEPLOYMENT_STATUSES } from '../../../functions/core/schemas.js';
import type { Accepted, Deployment } from '../../client.js';
import { oneOf, optionalWait, pageQuery, UsageError, type WaitLimit } from '../args.js';
import { type Command, itemCommand, listCommand, type Run } from '../command.js';
import { EXIT, err, out } from '../context.js';
import { json, showDeployment } from '../format.js';
import { follow, operationOutcome } from '../progress.js';

/**
 * What create and delete share once the API accepted them: without --wait, the accepted
 * operation and how to follow it; with --wait (no time limit unless --timeout), the
 * progress, then the deployment it left.
 */
async function reportAccepted(
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
  return operationOutcome(r, op);
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
};
