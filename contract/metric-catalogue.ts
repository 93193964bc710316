/**
 * The service's business metrics, declared once: the functions emit them (Powertools Metrics,
 * as CloudWatch embedded metric format lines, functions/lib/metrics.ts) and the monitoring
 * construct graphs and alarms on them (infra/aws/monitoring.ts). Both read this table, so a
 * metric's name, unit and dimensions cannot drift apart between the writer and the alarm.
 *
 * Every dimension takes its values from a closed set (operation types, phases, outcomes,
 * reasons), never from an id or a customer's input: CloudWatch bills each distinct
 * combination as a metric of its own, so cardinality stays a few dozen series per stage.
 * Powertools adds `service` (POWERTOOLS_SERVICE_NAME, the same for every function) to each.
 *
 * What each metric means is the comment above it, not a field: every function bundles this
 * table, and a description no code reads would cost each one about 0.7 KB (decision 201).
 */

import type { OperationType, Phase } from './schemas.js';
import type { LimitReason } from './vocabulary.js';

/** The namespace of a stage's metrics (POWERTOOLS_METRICS_NAMESPACE): stages of one account stay apart. */
export const metricNamespace = (stage: string): string => `DeploymentApi/${stage}`;

/** The `service` dimension Powertools puts on every metric (POWERTOOLS_SERVICE_NAME). */
export const METRIC_SERVICE = 'deployment-api';

/** Why a request was answered 429: one value per limit of core/rate-limits.ts. */
export { LIMIT_REASONS as THROTTLE_REASONS } from './vocabulary.js';
export type ThrottleReason = LimitReason;

/** How a webhook delivery attempt ended: delivered (2xx), will be retried, or given up (dead letter). */
export const DELIVERY_OUTCOMES = ['delivered', 'retrying', 'gave_up'] as const;
export type DeliveryOutcome = (typeof DELIVERY_OUTCOMES)[number];

/** An answer's status class: `5xx` answers are the service's faults, `4xx` the client's. */
export const STATUS_CLASSES = ['2xx', '3xx', '4xx', '5xx'] as const;
export type StatusClass = (typeof STATUS_CLASSES)[number];

/**
 * A request's route group: the first segment of its route's path template in contract/routes.ts
 * (`deployments`, `operations`, `environments`, `events`, `webhooks`, `key`, …), `dashboard`
 * for the dashboard API or `unmatched` for a path no route takes, so the set is as closed as the route table.
 */
export const routeGroupOf = (pathTemplate: string): string => pathTemplate.split('/').filter(Boolean)[0] ?? 'root';

/** The route group of the dashboard's API, and of a request no route takes (functions/http/route-not-found.ts). */
export const DASHBOARD_ROUTE_GROUP = 'dashboard';
export const UNMATCHED_ROUTE_GROUP = 'unmatched';

/** The dimensions each metric is emitted with, and the type of each dimension's value. */
interface DimensionValues {
  operation_type: OperationType;
  phase: Phase;
  outcome: DeliveryOutcome;
  reason: ThrottleReason;
  route_group: string;
  status_class: StatusClass;
}
type DimensionName = keyof DimensionValues;

interface MetricDeclaration {
  readonly name: string;
  /** CloudWatch's unit, as Powertools' MetricUnit spells it. */
  readonly unit: 'Count' | 'Seconds' | 'Milliseconds';
  readonly dimensions: readonly DimensionName[];
}

export const METRICS = {
  /** Operations accepted by a request (a 202), by type. */
  operationsStarted: {
    name: 'OperationsStarted',
    unit: 'Count',
    dimensions: ['operation_type'],
  },
  /** Operations the workflow ended as succeeded, by type. */
  operationsSucceeded: {
    name: 'OperationsSucceeded',
    unit: 'Count',
    dimensions: ['operation_type'],
  },
  /** Operations the workflow ended as failed, by type. */
  operationsFailed: {
    name: 'OperationsFailed',
    unit: 'Count',
    dimensions: ['operation_type'],
  },
  /** Operations ended as canceled, by type. */
  operationsCanceled: {
    name: 'OperationsCanceled',
    unit: 'Count',
    dimensions: ['operation_type'],
  },
  /** From a phase entered to the platform reporting it done, by type and phase. */
  phaseDuration: {
    name: 'PhaseDuration',
    unit: 'Seconds',
    dimensions: ['operation_type', 'phase'],
  },
  /** Webhook delivery attempts, by how they ended. */
  webhookDeliveries: {
    name: 'WebhookDeliveries',
    unit: 'Count',
    dimensions: ['outcome'],
  },
  /** From the event written to its delivery acknowledged by the receiver (delivered attempts only). */
  webhookDeliveryLatency: {
    name: 'WebhookDeliveryLatency',
    unit: 'Milliseconds',
    dimensions: [],
  },
  /** Requests answered, by route group and status class (the 5xx rate per route group). */
  requests: {
    name: 'Requests',
    unit: 'Count',
    dimensions: ['route_group', 'status_class'],
  },
  /** From the event received by the handler to its answer, by route group (p99 per route group). */
  requestLatency: {
    name: 'RequestLatency',
    unit: 'Milliseconds',
    dimensions: ['route_group'],
  },
  /** Requests answered 429, by the limit they hit. */
  requestsThrottled: {
    name: 'RequestsThrottled',
    unit: 'Count',
    dimensions: ['reason'],
  },
} as const satisfies Record<string, MetricDeclaration>;

export type MetricKey = keyof typeof METRICS;
/** The dimension values one data point of metric K carries. */
export type DimensionsOf<K extends MetricKey> = { [D in (typeof METRICS)[K]['dimensions'][number]]: DimensionValues[D] };
