/**
 * syncing_dags and provisioning_user: one one-off task each (one-off-tasks.ts). A user's
 * password goes to the `user` secret first; the task reads it from its `secrets`, so it is
 * in no command, override or task definition (decision 51).
 */

import { type JobStatus, type LogRequest, PlatformError } from '../../../core/platform.js';
import { taskStatus } from '../../../core/platform-ecs.js';
import { type EcsContext, type EcsJob, readRecord, writeRecord } from './context.js';
import { userSecretName } from './names.js';
import { type OneOffTask, observeTask, runOneOff, stopOneOff, taskLog } from './one-off-tasks.js';
import { putSecret } from './secrets.js';

/** Each API role as each app names it. */
const ROLES: Record<string, { airflow: string; superset: string }> = {
  admin: { airflow: 'Admin', superset: 'Admin' },
  editor: { airflow: 'User', superset: 'Alpha' },
  viewer: { airflow: 'Viewer', superset: 'Gamma' },
};

const USER_COMMAND = {
  airflow:
    'airflow users create --username "$NEW_USER" --email "$NEW_USER_EMAIL" --role "$NEW_USER_ROLE" --firstname "$NEW_USER" --lastname - --password "$NEW_USER_PASSWORD"',
  superset:
    'superset fab create-user --username "$NEW_USER" --email "$NEW_USER_EMAIL" --role "$NEW_USER_ROLE" --firstname "$NEW_USER" --lastname - --password "$NEW_USER_PASSWORD"',
};

/** The derived Airflow image's script (infra's Dockerfiles) replaces the DAG folder on EFS with the deployment's bundle. */
const SYNC_COMMAND = ['bash', '-c', 'sync-dags /opt/airflow/dags'];

export async function startAppJob(ctx: EcsContext, job: EcsJob, input: Record<string, unknown> | undefined): Promise<void> {
  if ((await readRecord(job, job.phase))?.taskArn) return;
  let task: OneOffTask;
  if (job.phase === 'syncing_dags') task = { step: 'sync', command: SYNC_COMMAND };
  else {
    const { username, email, role, password } = (input ?? {}) as Record<string, string | undefined>;
    if (!username || !email || !role || !password || !ROLES[role]) throw new PlatformError('The user to provision is incomplete.');
    await putSecret(ctx, job, userSecretName(job.dep), 'user', JSON.stringify({ password }));
    task = {
      step: 'user',
      command: ['bash', '-c', USER_COMMAND[job.app]],
      environment: [
        { name: 'NEW_USER', value: username },
        { name: 'NEW_USER_EMAIL', value: email },
        { name: 'NEW_USER_ROLE', value: ROLES[role]![job.app] },
      ],
    };
  }
  const taskArn = await runOneOff(ctx, job, task);
  await writeRecord(job, { taskArn }, ctx.now());
}

export async function checkAppJob(ctx: EcsContext, job: EcsJob, log?: LogRequest): Promise<JobStatus> {
  const record = await readRecord(job, job.phase);
  if (!record?.taskArn) return { state: 'failed', transient: false, message: 'The platform has no record of this job.' };
  const taskArn = String(record.taskArn);
  const status = taskStatus(await observeTask(ctx, taskArn), job.phase === 'syncing_dags' ? 'The DAG sync' : 'The user provisioning');
  const lines = log && (await taskLog(ctx, job, taskArn, log));
  return lines ? { ...status, log: lines } : status;
}

export async function cancelAppJob(ctx: EcsContext, job: EcsJob): Promise<void> {
  const record = await readRecord(job, job.phase);
  if (record?.taskArn) await stopOneOff(ctx, String(record.taskArn));
}
