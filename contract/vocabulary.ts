/**
 * The service's vocabulary, each list declared once (decision 211): app types, sizes,
 * scopes, statuses, operation types and their phases. Plain data with no imports, so the
 * web app and the CLI list them without bundling zod or node, and every Lambda may import
 * it for nothing. The zod enums (schemas.ts), the workflow (core/operations.ts), the
 * platform port (core/platform.ts), the metrics and alarms derive from these lists.
 */

/** The choices a deployment is made from: its app types and sizes (decision 41). */
export const APP_TYPES = ['airflow', 'superset'] as const;
export type AppType = (typeof APP_TYPES)[number];
export const SIZES = ['small', 'medium', 'large'] as const;
export type Size = (typeof SIZES)[number];

/** The scopes a key may hold (docs/api.md, section 2). */
export const SCOPES = ['deployments:read', 'deployments:write', 'deployments:delete', 'operations:read', 'org:read'] as const;

export const DEPLOYMENT_STATUSES = ['provisioning', 'ready', 'destroying', 'failed', 'destroyed'] as const;

export const OPERATION_STATUSES = ['queued', 'running', 'succeeded', 'failed', 'canceled'] as const;
export type OperationStatus = (typeof OPERATION_STATUSES)[number];
/** Terminal: these never change afterwards (docs/api.md, section 7.2). The dashboard and the client's wait read this list. */
export const TERMINAL_OPERATION_STATUSES = ['succeeded', 'failed', 'canceled'] as const satisfies readonly OperationStatus[];
export const isTerminal = (s: OperationStatus): boolean => (TERMINAL_OPERATION_STATUSES as readonly OperationStatus[]).includes(s);

export const OPERATION_TYPES = [
  'deployment.create',
  'deployment.destroy',
  'dag_sync.trigger',
  'app_user.provision',
  'deployment.update',
  'deployment.hibernate',
  'deployment.wake',
] as const;
export type OperationType = (typeof OPERATION_TYPES)[number];

/**
 * Decision 17's phases, declared once per operation type: the work phases its workflow
 * runs, in order (one platform job each), and the phase a success ends in. Every operation
 * starts in `queued`. `satisfies` makes a type without its phases, or an unknown type, a
 * compile error; PHASE_NAMES and WORK_PHASES below are derived, so no list can forget one.
 */
const PHASE_MAP = {
  'deployment.create': { work: ['provisioning_db', 'provisioning_infrastructure'], done: 'ready' },
  'deployment.destroy': { work: ['destroying_infrastructure', 'destroying_db'], done: 'destroyed' },
  'dag_sync.trigger': { work: ['syncing_dags'], done: 'synced' },
  'app_user.provision': { work: ['provisioning_user'], done: 'provisioned' },
  'deployment.update': { work: ['applying_config', 'restarting_services'], done: 'updated' },
  'deployment.hibernate': { work: ['stopping_services'], done: 'hibernated' },
  'deployment.wake': { work: ['starting_services'], done: 'awake' },
} as const satisfies Record<OperationType, { readonly work: readonly string[]; readonly done: string }>;

/** The phases that do work on the platform (decision 17), one job each. */
export type WorkPhase = (typeof PHASE_MAP)[OperationType]['work'][number];
export type Phase = 'queued' | WorkPhase | (typeof PHASE_MAP)[OperationType]['done'];

/** The phase map, as the workflow reads it (a phase list it may search for any phase). */
export const PHASES: Readonly<Record<OperationType, { readonly work: readonly Phase[]; readonly done: Phase }>> = PHASE_MAP;

// Derived in calls marked pure, as the schemas are built (schemas.ts): a bundle that reads
// neither list (the dashboard, most functions) drops them, and the phase map with them.

/** Every work phase, in the order of OPERATION_TYPES and of each type's work. */
export const WORK_PHASES = /* @__PURE__ */ OPERATION_TYPES.flatMap((t) => PHASE_MAP[t].work) as readonly WorkPhase[] as readonly [
  WorkPhase,
  ...WorkPhase[],
];
/** Every phase: `queued`, then each type's work phases and its done phase. */
export const PHASE_NAMES = /* @__PURE__ */ OPERATION_TYPES.reduce<Phase[]>(
  (all, t) => all.concat(PHASE_MAP[t].work, PHASE_MAP[t].done),
  ['queued'],
) as readonly Phase[] as readonly [Phase, ...Phase[]];
export const isWorkPhase = (phase: string): phase is WorkPhase => (WORK_PHASES as readonly string[]).includes(phase);

/** Decision 45: how much an operation's log line matters. */
export const LOG_LEVELS = ['info', 'warning', 'error'] as const;

/** Decision 37: the changes a client can see, one event each. */
export const EVENT_TYPES = ['deployment.created', 'deployment.updated', 'operation.created', 'operation.updated'] as const;

export const USER_ROLES = ['admin', 'editor', 'viewer'] as const;

/** Every limit a 429 names (ApiErrorOptions.limit, the Throttled metric's reason): the key's windows, creations, failed authentications, waits. */
export const LIMIT_REASONS = ['hourly', 'burst', 'creations', 'auth_failures', 'waits'] as const;
export type LimitReason = (typeof LIMIT_REASONS)[number];

/** A deployment's rolled-up health, and each component's (decision 48). */
export const HEALTH_STATUSES = ['healthy', 'degraded', 'unhealthy', 'unknown', 'hibernated'] as const;
export type HealthStatus = (typeof HEALTH_STATUSES)[number];
export const COMPONENT_STATUSES = ['healthy', 'unhealthy', 'unknown'] as const;
export type ComponentStatus = (typeof COMPONENT_STATUSES)[number];

/** Each app type's components, in the order the health endpoint lists them (decision 48). */
export const HEALTH_COMPONENTS = {
  airflow: ['webserver', 'scheduler', 'dag_processor', 'triggerer', 'metadata_db'],
  superset: ['webserver', 'metadata_db'],
} as const satisfies Record<AppType, readonly string[]>;
export type ComponentName = (typeof HEALTH_COMPONENTS)[AppType][number];

/** The metrics, in the order an answer lists them when none are asked for, with their units (decision 49). */
export const METRIC_UNITS = {
  cpu_utilization: 'percent',
  memory_utilization: 'percent',
  http_requests: 'count',
  http_errors: 'count',
  response_time_p95: 'milliseconds',
} as const;
export type MetricName = keyof typeof METRIC_UNITS;
export const METRIC_NAMES = /* @__PURE__ */ Object.keys(METRIC_UNITS) as MetricName[];

/** The periods a metrics request may ask for, smallest first (decision 49). */
export const METRIC_PERIODS = [60, 300, 3600] as const;
export type MetricPeriod = (typeof METRIC_PERIODS)[number];
