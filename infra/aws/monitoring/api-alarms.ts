/** Requests: the API as a whole (API Gateway's own count, which sees the 502s of a crashed function) and per route group. */
import type * as apigw from 'aws-cdk-lib/aws-apigateway';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import { routeGroupOf, STATUS_CLASSES } from '../../../contract/metric-catalogue.js';
import { waitOperation } from '../../../contract/routes.js';
import { ROUTE_GROUPS } from '../service-metrics.js';
import { type AlarmKit, mathId, PERIOD, THRESHOLDS } from './alarms.js';

/**
 * Route groups whose p99 is not an ordinary request's: GET /operations/{id}/wait answers after
 * up to 20 s by design (decision 36), so its group alarms only when waits overrun that.
 */
export const LATENCY_P99_MS_BY_GROUP: Readonly<Record<string, number>> = { [routeGroupOf(waitOperation.path)]: 22_000 };

/** The series the dashboard graphs beside the alarms. */
export interface ApiSignals {
  readonly apiCount: cloudwatch.Metric;
  readonly api5xx: cloudwatch.Metric;
  readonly routeRequests: ReadonlyMap<string, cloudwatch.MathExpression>;
  readonly route5xxRates: ReadonlyMap<string, cloudwatch.MathExpression>;
  readonly routeLatency: ReadonlyMap<string, cloudwatch.Metric>;
}

/** Pages on 5xx answers, of the whole API and of each route group; a ticket on each group's p99 latency. */
export function apiAlarms(kit: AlarmKit, api: apigw.RestApi): ApiSignals {
  const { child, metric } = kit;
  const apiCount = api.deploymentStage.metricCount({ statistic: 'Sum', period: PERIOD, label: 'requests' });
  const api5xx = api.deploymentStage.metricServerError({ statistic: 'Sum', period: PERIOD, label: '5xx' });
  child(
    'Api5xxRate',
    'page',
    new cloudwatch.MathExpression({
      expression: `IF(api5xx >= ${THRESHOLDS.route5xxMinimum}, 100 * api5xx / apiCount, 0)`,
      usingMetrics: { api5xx, apiCount },
      label: 'API 5xx, % of requests',
      period: PERIOD,
    }),
    `At least ${THRESHOLDS.server5xxPercent}% of all API requests (and ${THRESHOLDS.route5xxMinimum} or more) answered 5xx, API Gateway's own answers included, in 2 of 3 five-minute periods`,
    { threshold: THRESHOLDS.server5xxPercent, evaluationPeriods: 3, datapointsToAlarm: 2 },
  );

  const route5xxRates = new Map<string, cloudwatch.MathExpression>();
  const routeLatency = new Map<string, cloudwatch.Metric>();
  const routeRequests = new Map<string, cloudwatch.MathExpression>();
  for (const group of ROUTE_GROUPS) {
    const byClass = Object.fromEntries(
      STATUS_CLASSES.map((c) => [
        mathId(`s${c}`, group),
        metric('requests', { route_group: group, status_class: c }, { statistic: 'Sum', period: PERIOD }),
      ]),
    );
    const all = Object.keys(byClass)
      .map((k) => `FILL(${k}, 0)`)
      .join(' + ');
    const errors = `FILL(${mathId('s5xx', group)}, 0)`;
    routeRequests.set(group, new cloudwatch.MathExpression({ expression: all, usingMetrics: byClass, label: group, period: PERIOD }));
    const rate = new cloudwatch.MathExpression({
      expression: `IF(${errors} >= ${THRESHOLDS.route5xxMinimum}, 100 * ${errors} / (${all}), 0)`,
      usingMetrics: byClass,
      label: group,
      period: PERIOD,
    });
    route5xxRates.set(group, rate);
    child(
      `Route5xxRate-${group}`,
      'page',
      rate,
      `At least ${THRESHOLDS.server5xxPercent}% of the ${group} routes' answers (and ${THRESHOLDS.route5xxMinimum} or more) were 5xx in 2 of 3 five-minute periods`,
      { threshold: THRESHOLDS.server5xxPercent, evaluationPeriods: 3, datapointsToAlarm: 2 },
    );

    const p99 = metric('requestLatency', { route_group: group }, { statistic: 'p99', period: PERIOD, label: group });
    routeLatency.set(group, p99);
    const limitMs = LATENCY_P99_MS_BY_GROUP[group] ?? THRESHOLDS.latencyP99Ms;
    child(`RouteLatencyP99-${group}`, 'ticket', p99, `p99 latency of the ${group} routes at or above ${limitMs} ms for 15 minutes`, {
      threshold: limitMs,
      evaluationPeriods: 3,
    });
  }
  return { apiCount, api5xx, routeRequests, route5xxRates, routeLatency };
}
