/**
 * The schemas of the monitoring routes (decisions 48 and 49): a deployment's health with
 * its components, and its metrics. Apart from schemas.ts so that a function that does not
 * serve them neither bundles nor builds them; each call is marked pure for the same reason
 * (schemas.ts says why).
 */
import * as z from 'zod/mini';
import { TIMESTAMP_PATTERN as TIMESTAMP } from './limits.js';
import { schema } from './schemas.js';
import { COMPONENT_STATUSES, HEALTH_STATUSES, METRIC_NAMES, METRIC_PERIODS, type METRIC_UNITS } from './vocabulary.js';

const TIMESTAMP_RULE = 'must be a timestamp such as 2026-11-28T06:40:00.000Z (milliseconds optional)';

const Timestamp = /* @__PURE__ */ schema(() =>
  z.string().check(z.describe('ISO 8601 UTC timestamp with milliseconds, e.g. 2026-11-22T06:40:00.000Z')),
);

export const HealthComponent = /* @__PURE__ */ schema(() =>
  z.object({
    name: z
      .string()
      .check(z.describe('airflow: webserver, scheduler, dag_processor, triggerer, metadata_db; superset: webserver, metadata_db.')),
    status: z.enum(COMPONENT_STATUSES),
    since: Timestamp.check(z.describe('When this component’s status last changed.')),
    message: z.nullable(z.string()).check(z.describe('Why, in a sentence, when the platform says; else null.')),
  }),
);

/** GET /deployments/{id}/health. */
export const HealthReport = /* @__PURE__ */ schema(() =>
  z.object({
    status: z.enum(HEALTH_STATUSES),
    since: Timestamp.check(z.describe('When the rolled-up status last changed (at creation, created_at).')),
    checked_at: z.nullable(Timestamp).check(z.describe('The latest check; null before the first.')),
    components: z
      .array(HealthComponent)
      .check(z.describe('In the app type’s order; empty while the deployment is not ready and awake, or not yet checked.')),
  }),
);
export type HealthReport = z.infer<typeof HealthReport>;

/**
 * The query of GET /deployments/{id}/metrics: each parameter's form is checked here (so the
 * document shows it); core/metrics-range.ts checks what they mean together (decision 49).
 */
export const MetricsQuery = /* @__PURE__ */ schema(() =>
  z.object({
    metrics: z
      .optional(z.string().check(z.maxLength(256), z.regex(/^([A-Za-z_][A-Za-z0-9_, ]*)?$/, 'must be metric names, comma-separated')))
      .check(z.describe(`Comma-separated, of: ${METRIC_NAMES.join(', ')}. Default all five, in that order; a name twice counts once.`)),
    start: z
      .optional(z.string().check(z.maxLength(24), z.regex(TIMESTAMP, TIMESTAMP_RULE)))
      .check(z.describe('A timestamp within the last 15 days, before end (milliseconds optional). Default one hour before end.')),
    end: z
      .optional(z.string().check(z.maxLength(24), z.regex(TIMESTAMP, TIMESTAMP_RULE)))
      .check(z.describe('A timestamp (milliseconds optional). Default now.')),
    period: z
      .optional(z.enum(METRIC_PERIODS.map(String) as [string, ...string[]]))
      .check(
        z.describe(
          `Seconds: ${METRIC_PERIODS.join(', ')}. Default the smallest that gives at most 360 periods; at most 1,440 periods in all.`,
        ),
      ),
  }),
);

export const MetricSeries = /* @__PURE__ */ schema(() =>
  z.object({
    metric: z.enum(METRIC_NAMES as [keyof typeof METRIC_UNITS, ...(keyof typeof METRIC_UNITS)[]]),
    unit: z.enum(['percent', 'count', 'milliseconds']),
    points: z
      .array(z.object({ time: Timestamp.check(z.describe('The start of its period.')), value: z.number() }))
      .check(z.describe('Oldest first; a period without data (not running, or not yet ended and empty) has no point.')),
  }),
);

/** GET /deployments/{id}/metrics. */
export const Metrics = /* @__PURE__ */ schema(() =>
  z.object({
    start: Timestamp.check(z.describe('The asked start rounded down to a multiple of period.')),
    end: Timestamp.check(z.describe('The asked end rounded up to a multiple of period.')),
    period: z.int().check(z.describe('Seconds per point.')),
    series: z.array(MetricSeries).check(z.describe('One per metric, in the order asked.')),
  }),
);
export type Metrics = z.infer<typeof Metrics>;
