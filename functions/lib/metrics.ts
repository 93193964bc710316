/**
 * The business metrics of contract/metric-catalogue.ts, written with Powertools for AWS Lambda's
 * Metrics as CloudWatch embedded metric format (EMF) lines on stdout, which CloudWatch turns
 * into metrics from the function's log group (decision 182). `emit('operationsFailed',
 * { operation_type }, 1)` records one data point with exactly the dimensions the catalogue
 * declares for it, plus `service`; `publishMetrics()` writes what the invocation recorded,
 * and every entry point calls it as the invocation ends (functions/middleware/invocation.ts,
 * request-metrics.ts).
 *
 * Each metric and set of dimension values has its own Powertools Metrics object, whose line
 * carries that one metric and those dimensions only (what `singleMetric()` gives, but
 * stored until the invocation ends, so a batch's ten deliveries make one line). Every
 * dimension comes from a closed set, so there are a few dozen objects at most. Their
 * stored values are the invocation's own: Powertools keeps them per invocation in the
 * InvokeStore when invocations share a process (the local host, local/current-function.ts).
 */
import { Metrics } from '@aws-lambda-powertools/metrics';
import { type DimensionsOf, METRIC_SERVICE, METRICS, type MetricKey, metricNamespace } from '../../contract/metric-catalogue.js';

/** The stage's namespace and the service, as the stack sets them (infra/aws/function-env.ts); a local process's otherwise. */
const namespace = process.env.POWERTOOLS_METRICS_NAMESPACE || metricNamespace('local');
const serviceName = process.env.POWERTOOLS_SERVICE_NAME || METRIC_SERVICE;

const recorders = new Map<string, Metrics>();

/** The Metrics object of one metric with one set of dimension values. */
function recorder(name: string, dimensions: Record<string, string>): Metrics {
  const id = JSON.stringify([name, dimensions]);
  let found = recorders.get(id);
  if (!found) {
    found = new Metrics({ namespace, serviceName, defaultDimensions: dimensions });
    recorders.set(id, found);
  }
  return found;
}

/** Records one data point of a catalogued metric, with the dimension values the catalogue declares for it (and no other). */
export function emit<K extends MetricKey>(key: K, dimensions: DimensionsOf<K>, value: number): void {
  const metric = METRICS[key];
  const values = dimensions as Record<string, string>;
  const declared = Object.fromEntries(metric.dimensions.map((d) => [d, values[d]!]));
  recorder(metric.name, declared).addMetric(metric.name, metric.unit, value);
}

/** Writes the EMF lines of everything the invocation recorded (nothing when it recorded nothing). */
export function publishMetrics(): void {
  for (const m of recorders.values()) if (m.hasStoredMetrics()) m.publishStoredMetrics();
}
