/**
 * What the ECS driver's observations of a deployment mean for its health (decision 48) and
 * its metrics (decision 49), pure. A Lambda outside the VPC cannot reach the application's
 * own health endpoint, so health is what AWS reports: the service's running tasks, each
 * container's health check (the task definition declares one per container), the load
 * balancer's targets, and a query of the metadata database through the Data API. The
 * adapter (adapters/platform/ecs/monitoring.ts) reads; this decides.
 */
import type { AppType } from '../../contract/vocabulary.js';
import type { ComponentObservation } from './health.js';

/** Which container of the task stands for which component. */
export const COMPONENT_CONTAINERS: Record<AppType, Readonly<Record<string, string>>> = {
  airflow: { webserver: 'webserver', scheduler: 'scheduler', dag_processor: 'dag-processor', triggerer: 'triggerer' },
  superset: { webserver: 'superset' },
};

export interface HealthObservations {
  /** DescribeServices' answer; undefined when the service is missing. */
  service?: { status: string; desiredCount: number; runningCount: number; rolloutState?: string; rolloutStateReason?: string };
  /** The service's tasks (DescribeTasks): each container's health check status (HEALTHY, UNHEALTHY, UNKNOWN). */
  tasks: { lastStatus: string; containers: { name: string; healthStatus?: string }[] }[];
  /** The target group's targets (DescribeTargetHealth). */
  targets: { state: string; reason?: string; description?: string }[];
  /** The metadata database: reachable with the deployment's database in it, or why not. */
  database: { ok: true } | { ok: false; message: string };
}

const plural = (n: number, one: string) => `${n} ${one}${n === 1 ? '' : 's'}`;

/** A container's health over the running tasks: unhealthy in any of them is unhealthy. */
function containerHealth(container: string, running: HealthObservations['tasks']): ComponentObservation['status'] | { message: string } {
  const statuses = running.map((t) => t.containers.find((c) => c.name === container)?.healthStatus ?? 'UNKNOWN');
  const bad = statuses.filter((s) => s === 'UNHEALTHY').length;
  if (bad > 0)
    return {
      message: `The ${container} container's health check fails (UNHEALTHY in ${bad} of ${plural(running.length, 'running task')}).`,
    };
  return statuses.every((s) => s === 'HEALTHY') ? 'healthy' : 'unknown';
}

function webTargets(targets: HealthObservations['targets']): string | null {
  if (targets.length === 0) return 'No task is registered with the load balancer.';
  const healthy = targets.filter((t) => t.state === 'healthy').length;
  if (healthy > 0) return null;
  const why = targets.find((t) => t.description || t.reason);
  return `0 of ${plural(targets.length, 'load balancer target')} healthy${why ? `: ${why.description ?? why.reason}` : '.'}`;
}

/** The components of an app type from what AWS reports (metadata_db last, as decision 48 orders them). */
export function ecsHealth(app: AppType, o: HealthObservations): ComponentObservation[] {
  const db: ComponentObservation = o.database.ok
    ? { name: 'metadata_db', status: 'healthy', message: null }
    : { name: 'metadata_db', status: 'unhealthy', message: o.database.message };
  const containers = Object.entries(COMPONENT_CONTAINERS[app]);
  const all = (message: string): ComponentObservation[] => [
    ...containers.map(([name]) => ({ name, status: 'unhealthy' as const, message })),
    db,
  ];
  const s = o.service;
  if (s?.status !== 'ACTIVE') return all(`The application's ECS service is ${s ? s.status : 'missing'}.`);
  const running = o.tasks.filter((t) => t.lastStatus === 'RUNNING');
  if (running.length === 0) {
    const rollout = s.rolloutState === 'FAILED' && s.rolloutStateReason ? ` ${s.rolloutStateReason}` : '';
    return all(`0 of ${plural(s.desiredCount, 'task')} running.${rollout}`);
  }
  const components = containers.map(([name, container]): ComponentObservation => {
    const health = containerHealth(container, running);
    if (typeof health === 'object') return { name, status: 'unhealthy', message: health.message };
    if (name === 'webserver') {
      const targets = webTargets(o.targets);
      if (targets) return { name, status: 'unhealthy', message: targets };
    }
    return health === 'healthy'
      ? { name, status: 'healthy', message: null }
      : { name, status: 'unknown', message: `The ${container} container's health check has not reported yet.` };
  });
  return [...components, db];
}
