/**
 * provisioning_db and destroying_db: the deployment's own role and database on the shared
 * Aurora PostgreSQL cluster, made through the RDS Data API (seconds; the functions need no
 * VPC). Its credentials live in its `db` secret; the check proves them by logging in.
 */
import { randomBytes } from 'node:crypto';
import { ExecuteStatementCommand, type SqlParameter } from '@aws-sdk/client-rds-data';
import { CreateSecretCommand, PutSecretValueCommand } from '@aws-sdk/client-secrets-manager';
import type { JobStatus } from '../../../core/platform.js';
import { aws, type EcsContext, type EcsJob, errorName, writeRecord } from './context.js';
import { dbName, dbSecretName, deploymentTags, requestToken } from './names.js';
import { deleteSecret, secretArnOf } from './secrets.js';

const tags = (job: EcsJob) => deploymentTags(job.dep, job.org).map((t) => ({ Key: t.key, Value: t.value }));

/** One statement through the Data API; its rows as strings. */
export async function sql(ctx: EcsContext, secretArn: string, text: string, params: Record<string, string> = {}): Promise<string[][]> {
  const parameters: SqlParameter[] = Object.entries(params).map(([name, value]) => ({ name, value: { stringValue: value } }));
  const out = await aws('ran a database statement', () =>
    ctx.aws.rdsData.send(
      new ExecuteStatementCommand({
        resourceArn: ctx.settings.dbClusterArn,
        secretArn,
        sql: text,
        ...(parameters.length ? { parameters } : {}),
      }),
    ),
  );
  return (out.records ?? []).map((row) => row.map((f) => String(f.stringValue ?? f.longValue ?? f.booleanValue ?? '')));
}

/** The deployment's credentials, stored first (a retried start gives the role a new password and stores it). */
async function storeCredentials(ctx: EcsContext, job: EcsJob, role: string, password: string): Promise<string> {
  const value = JSON.stringify({ username: role, password, engine: 'postgres', dbname: role });
  try {
    const out = await aws('stored the database credentials', () =>
      ctx.aws.secrets.send(
        new CreateSecretCommand({
          Name: dbSecretName(job.dep),
          SecretString: value,
          ClientRequestToken: requestToken(job.op, job.phase, `db-${password.slice(0, 8)}`),
          Tags: tags(job),
        }),
      ),
    );
    return out.ARN!;
  } catch (e) {
    if (errorName(e) !== 'ResourceExistsException') throw e;
    const out = await aws('stored the database credentials', () =>
      ctx.aws.secrets.send(new PutSecretValueCommand({ SecretId: dbSecretName(job.dep), SecretString: value })),
    );
    return out.ARN!;
  }
}

export async function startProvisioningDb(ctx: EcsContext, job: EcsJob): Promise<void> {
  const role = dbName(job.dep);
  const password = randomBytes(24).toString('hex');
  const secretArn = await storeCredentials(ctx, job, role, password);
  const admin = ctx.settings.dbAdminSecretArn;
  // Names are d_<hex> (no quoting needed); the password is hex. Each statement is idempotent.
  const roleExists = (await sql(ctx, admin, 'SELECT 1 FROM pg_roles WHERE rolname = :r', { r: role })).length > 0;
  await sql(ctx, admin, `${roleExists ? 'ALTER' : 'CREATE'} ROLE ${role} WITH LOGIN PASSWORD '${password}' CONNECTION LIMIT 40`);
  const dbExists = (await sql(ctx, admin, 'SELECT 1 FROM pg_database WHERE datname = :d', { d: role })).length > 0;
  if (!dbExists) await sql(ctx, admin, `CREATE DATABASE ${role} OWNER ${role}`);
  await sql(ctx, admin, `REVOKE ALL ON DATABASE ${role} FROM PUBLIC`);
  await writeRecord(job, { dbSecretArn: secretArn }, ctx.now());
}

/** Done when the database exists and the deployment's own credentials log in as its role. */
export async function checkProvisioningDb(ctx: EcsContext, job: EcsJob): Promise<JobStatus> {
  const role = dbName(job.dep);
  const exists = await sql(ctx, ctx.settings.dbAdminSecretArn, 'SELECT datname FROM pg_database WHERE datname = :d', { d: role });
  if (!exists.length) return { state: 'failed', transient: false, message: 'The database could not be created.' };
  const secretArn = await secretArnOf(ctx, dbSecretName(job.dep));
  const [[user] = []] = secretArn ? await sql(ctx, secretArn, 'SELECT current_user') : [];
  return user === role
    ? { state: 'succeeded' }
    : { state: 'failed', transient: true, message: 'The database does not accept the deployment credentials yet.' };
}

export async function startDestroyingDb(ctx: EcsContext, job: EcsJob): Promise<void> {
  const role = dbName(job.dep);
  const admin = ctx.settings.dbAdminSecretArn;
  await sql(ctx, admin, `DROP DATABASE IF EXISTS ${role} WITH (FORCE)`);
  await sql(ctx, admin, `DROP ROLE IF EXISTS ${role}`);
  await deleteSecret(ctx, dbSecretName(job.dep));
}

/**
 * Done when neither the database nor the role is there. A provisioning_db step of the create
 * this destroy stopped may still be running when the destroy starts and make them after the
 * start dropped them: a check that finds them drops them again (decision 331).
 */
export async function checkDestroyingDb(ctx: EcsContext, job: EcsJob): Promise<JobStatus> {
  const left = await sql(
    ctx,
    ctx.settings.dbAdminSecretArn,
    'SELECT datname FROM pg_database WHERE datname = :d UNION ALL SELECT rolname FROM pg_roles WHERE rolname = :d',
    { d: dbName(job.dep) },
  );
  if (left.length === 0) return { state: 'succeeded' };
  await startDestroyingDb(ctx, job);
  return { state: 'running', nextCheckSeconds: 10 };
}
