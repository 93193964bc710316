/**
 * The deployment's secrets in Secrets Manager: its env secret (one JSON secret, a key per
 * secret env entry, a new version per configuration, decision 273), its database
 * credentials, and the secret a user-provisioning task reads its password from.
 */
import { CreateSecretCommand, DeleteSecretCommand, DescribeSecretCommand, PutSecretValueCommand } from '@aws-sdk/client-secrets-manager';
import type { PlatformConfig } from '../../../core/platform.js';
import { aws, type EcsContext, type EcsJob, errorName, unlessAbsent } from './context.js';
import { deploymentTags, requestToken } from './names.js';

/** The JSON the env secret holds: each secret entry's value under its name. */
export const secretEnvJson = (config: PlatformConfig): string =>
  JSON.stringify(Object.fromEntries(Object.entries(config.env).flatMap(([name, e]) => (e.secret ? [[name, e.value]] : []))));

/**
 * Writes `value` as a version of the secret `name` (made, tagged, when missing); the same
 * step of the same operation writes the same version (ClientRequestToken). Its ARN and version.
 */
export async function putSecret(
  ctx: EcsContext,
  job: EcsJob,
  name: string,
  step: string,
  value: string,
): Promise<{ arn: string; versionId: string }> {
  const token = requestToken(job.op, job.phase, step);
  try {
    const out = await aws('stored a secret', () =>
      ctx.aws.secrets.send(
        new CreateSecretCommand({
          Name: name,
          SecretString: value,
          ClientRequestToken: token,
          Tags: deploymentTags(job.dep, job.org).map((t) => ({ Key: t.key, Value: t.value })),
        }),
      ),
    );
    return { arn: out.ARN!, versionId: out.VersionId! };
  } catch (e) {
    if (errorName(e) !== 'ResourceExistsException') throw e;
  }
  const out = await aws('stored a secret', () =>
    ctx.aws.secrets.send(new PutSecretValueCommand({ SecretId: name, SecretString: value, ClientRequestToken: token })),
  );
  return { arn: out.ARN!, versionId: out.VersionId! };
}

export async function secretArnOf(ctx: EcsContext, name: string): Promise<string | undefined> {
  const out = await unlessAbsent('looked up a secret', ['ResourceNotFoundException'], () =>
    ctx.aws.secrets.send(new DescribeSecretCommand({ SecretId: name })),
  );
  return out?.ARN;
}

/** Schedules the secret's deletion (7 days to recover it); one already gone or scheduled is left. */
export async function deleteSecret(ctx: EcsContext, name: string): Promise<void> {
  await unlessAbsent('deleted a secret', ['ResourceNotFoundException', 'InvalidRequestException'], () =>
    ctx.aws.secrets.send(new DeleteSecretCommand({ SecretId: name, RecoveryWindowInDays: 7 })),
  );
}
