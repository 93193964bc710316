/**
 * The ECS driver's settings: one environment variable, PLATFORM_SETTINGS (JSON), which the
 * platform stack sets on the workflow's functions from its outputs (and the local host from
 * the shared resources it makes, docs/platform.md). Read once, validated, so
 * a misconfigured function fails at its first use with a message naming the field.
 */
import * as z from 'zod/mini';

// Built when the settings are read, not at import: the functions that reach this module without
// calling the driver (a writer's launch, the hibernation scheduler) then bundle none of it.
const schema = () => {
  const arns = z.array(z.string().check(z.minLength(1))).check(z.minLength(1));
  return z.strictObject({
    region: z.string().check(z.minLength(1)),
    clusterArn: z.string().check(z.minLength(1)),
    subnetIds: arns,
    securityGroupIds: arns,
    /** One HTTPS listener per load-balancer shard (an ALB holds at most 100 target groups). */
    listenerArns: arns,
    domain: z.string().check(z.minLength(1)),
    hostedZoneId: z.string().check(z.minLength(1)),
    dbClusterArn: z.string().check(z.minLength(1)),
    dbAdminSecretArn: z.string().check(z.minLength(1)),
    /** Repository URIs; the image tag is the app_version. */
    images: z.strictObject({ airflow: z.string().check(z.minLength(1)), superset: z.string().check(z.minLength(1)) }),
    executionRoleArn: z.string().check(z.minLength(1)),
    taskRoleArn: z.string().check(z.minLength(1)),
    logGroupPrefix: z.string().check(z.minLength(1)),
    /** EFS for the DAGs of Airflow deployments. */
    fileSystemId: z.string().check(z.minLength(1)),
  });
};

export type EcsSettings = z.infer<ReturnType<typeof schema>>;

export function parseEcsSettings(raw: string | undefined): EcsSettings {
  if (!raw) throw new Error('PLATFORM=ecs needs PLATFORM_SETTINGS (JSON; docs/platform.md)');
  let json: unknown;
  try {
    json = JSON.parse(raw);
  } catch {
    throw new Error('PLATFORM_SETTINGS must be JSON');
  }
  const parsed = z.safeParse(schema(), json);
  if (!parsed.success) {
    const where = parsed.error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`).join('; ');
    throw new Error(`PLATFORM_SETTINGS is invalid: ${where}`);
  }
  return parsed.data;
}
