/**
 * The service's own metrics as CloudWatch sees them, read from the catalogue the functions
 * emit them by (contract/metric-catalogue.ts): a metric is asked for by its catalogue
 * key and the values of exactly the dimensions the catalogue declares for it, so its name,
 * unit and dimension set cannot drift from what the functions write (decision 191). Also
 * the route groups, derived from the two route tables as the catalogue defines them.
 */
import type { Duration } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import {
  DASHBOARD_ROUTE_GROUP,
  type DimensionsOf,
  METRIC_SERVICE,
  METRICS,
  type MetricKey,
  metricNamespace,
  routeGroupOf,
} from '../../contract/metric-catalogue.js';
import { routeList } from '../../contract/routes.js';

export interface CatalogueMetricOptions {
  readonly statistic: string;
  readonly period: Duration;
  readonly label?: string;
}

/**
 * One series of a catalogue metric: the stage's namespace, the `service` dimension Powertools
 * adds to every data point, and the metric's own dimensions with the values given.
 */
export function catalogueMetric<K extends MetricKey>(
  stage: string,
  key: K,
  dimensions: DimensionsOf<K>,
  options: CatalogueMetricOptions,
): cloudwatch.Metric {
  const declared = METRICS[key];
  const given = dimensions as Record<string, string>;
  const names = Object.keys(given).sort();
  if (names.join() !== [...declared.dimensions].sort().join())
    throw new Error(`${declared.name} is emitted with dimensions [${declared.dimensions.join(', ')}], not [${names.join(', ')}]`);
  return new cloudwatch.Metric({
    namespace: metricNamespace(stage),
    metricName: declared.name,
    dimensionsMap: { service: METRIC_SERVICE, ...given },
    unit: cloudwatch.Unit[declared.unit.toUpperCase() as Uppercase<typeof declared.unit>],
    statistic: options.statistic,
    period: options.period,
    label: options.label,
  });
}

/**
 * The route groups requests are counted under, as the HTTP stacks name them
 * (functions/middleware/http-route.ts, dashboard-route.ts): the first segment of each path of
 * contract/routes.ts, and one group for the dashboard's API. Requests no route takes
 * (`unmatched`) are answered 404 without touching anything that could fail, so they get no alarm.
 */
export const ROUTE_GROUPS: readonly string[] = [...new Set(routeList.map((r) => routeGroupOf(r.path))), DASHBOARD_ROUTE_GROUP];

/** Splits a list into runs of at most `size`, in order (CloudWatch alarms read at most 10 metrics each). */
export function chunks<T>(items: readonly T[], size: number): T[][] {
  if (size < 1) throw new Error(`chunk size ${size}`);
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}
