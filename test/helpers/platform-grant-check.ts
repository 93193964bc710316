/**
 * The grant check for the hosting platform's calls (decision 313): every SDK call the ECS
 * driver sends in the aws-api tests is recorded (watchPlatformCalls in
 * functions/adapters/platform/ecs/clients.ts) under the driver use that sent it (start and
 * check: `drive`, cancel: `cancel`, restore: `restore`, health and metrics: `observe`, as
 * PLATFORM_USE gives them to functions), and judged against PLATFORM_ACTIONS of that use.
 * Some requests are authorised as more than their own action: tags on a create need the
 * service's tagging action too, a task definition naming roles needs iam:PassRole, and the
 * Data API reads the secret it is given with the caller's rights.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { watchPlatformCalls } from '../../functions/adapters/platform/ecs/clients.js';
import type { HostingPlatform } from '../../functions/core/platform.js';
import { PLATFORM_ACTIONS, type PlatformUse } from '../../infra/aws/platform/driver-grants.js';

const TAGGING: Record<string, string> = {
  'ecs:CreateService': 'ecs:TagResource',
  'ecs:RunTask': 'ecs:TagResource',
  'ecs:RegisterTaskDefinition': 'ecs:TagResource',
  'elasticloadbalancing:CreateTargetGroup': 'elasticloadbalancing:AddTags',
  'elasticloadbalancing:CreateRule': 'elasticloadbalancing:AddTags',
  'secretsmanager:CreateSecret': 'secretsmanager:TagResource',
  'logs:CreateLogGroup': 'logs:TagResource',
  'acm:RequestCertificate': 'acm:AddTagsToCertificate',
};

const nonEmpty = (v: unknown) => (Array.isArray(v) ? v.length > 0 : v !== undefined && v !== null && Object.keys(v).length > 0);

/** Every IAM action one request is authorised as: its own, and those its input makes IAM ask for too. */
export function actionsOfRequest(action: string, input: Record<string, unknown>): string[] {
  const all = [action];
  if (TAGGING[action] && (nonEmpty(input.tags) || nonEmpty(input.Tags))) all.push(TAGGING[action]);
  if (action === 'ecs:RegisterTaskDefinition' && (input.taskRoleArn || input.executionRoleArn)) all.push('iam:PassRole');
  // ECS asks for iam:PassRole of the task definition's roles on every RunTask.
  if (action === 'ecs:RunTask') all.push('iam:PassRole');
  if (action === 'rds-data:ExecuteStatement' && input.secretArn) all.push('secretsmanager:GetSecretValue');
  return all;
}

/** The IAM actions seen, by the use that sent them; `unattributed` for a call made outside any driver method. */
export type RecordedActions = Map<PlatformUse | 'unattributed', Set<string>>;

/**
 * Wraps a driver so that every AWS call one of its methods makes is recorded under that
 * method's use, from now on; `recorded` holds what was seen.
 */
export function recordPlatformCalls(driver: HostingPlatform): { driver: HostingPlatform; recorded: RecordedActions; stop: () => void } {
  const using = new AsyncLocalStorage<PlatformUse>();
  const recorded: RecordedActions = new Map();
  const stop = watchPlatformCalls((action, input) => {
    const use = using.getStore() ?? 'unattributed';
    const seen = recorded.get(use) ?? new Set<string>();
    for (const a of actionsOfRequest(action, input)) seen.add(a);
    recorded.set(use, seen);
  });
  const as =
    <A extends unknown[], R>(use: PlatformUse, f: ((...a: A) => Promise<R>) | undefined) =>
    (...a: A) =>
      using.run(use, () => f!(...a));
  const wrapped: HostingPlatform = {
    start: as('drive', driver.start),
    check: as('drive', driver.check),
    cancel: as('cancel', driver.cancel),
    ...(driver.restore ? { restore: as('restore', driver.restore) } : {}),
    ...(driver.health ? { health: as('observe', driver.health) } : {}),
    ...(driver.metrics ? { metrics: as('observe', driver.metrics) } : {}),
  };
  return { driver: wrapped, recorded, stop };
}

/** Each use's recorded actions that its grants lack (empty lists when every call is granted). */
export function ungranted(recorded: RecordedActions): Record<string, string[]> {
  return Object.fromEntries(
    [...recorded].map(([use, actions]) => [
      use,
      [...actions].filter((a) => use === 'unattributed' || !PLATFORM_ACTIONS[use].includes(a)).sort(),
    ]),
  );
}

/** Each use's granted actions that no recorded call needed. */
export function unused(recorded: RecordedActions): Record<string, string[]> {
  return Object.fromEntries(
    (Object.keys(PLATFORM_ACTIONS) as PlatformUse[]).map((use) => [use, PLATFORM_ACTIONS[use].filter((a) => !recorded.get(use)?.has(a))]),
  );
}
