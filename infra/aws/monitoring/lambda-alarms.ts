/** Lambda, rolled up per kind in runs of at most 10 functions (decision 192): errors, throttles and the longest run. */
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import { type FunctionKind, functionLimits } from '../../function-limits.js';
import type { ServiceFunction } from '../functions.js';
import { chunks } from '../service-metrics.js';
import { ALARM_METRICS_MAX, type AlarmKit, PERIOD, THRESHOLDS } from './alarms.js';

/** The kinds of function, each rolled up on its own (functions of a kind share a timeout, but for a few). */
const KINDS: readonly FunctionKind[] = ['http', 'workflow', 'events'];

/** The series the dashboard graphs beside the alarms. */
export interface LambdaSignals {
  /** Each function's longest run in percent of its timeout. */
  readonly durationShare: ReadonlyMap<string, cloudwatch.MathExpression>;
}

/** One roll-up alarm of a kind of metric over a run of functions. */
interface Rollup {
  id: string;
  read: (f: ServiceFunction) => cloudwatch.IMetric;
  /** The metric-math id of each function's metric, and the term the alarm's expression makes of it. */
  prefix: string;
  term: (id: string, f: ServiceFunction) => string;
  expression: (terms: string) => string;
  label: string;
  says: string;
  threshold: number;
}

/** Tickets on errors, throttles and runs near the timeout, one alarm of each per run of functions of a kind. */
export function lambdaAlarms(kit: AlarmKit, functions: readonly ServiceFunction[]): LambdaSignals {
  const ids = new Map(functions.map((f, i) => [f.name, i]));
  const timeoutMs = (f: ServiceFunction) => functionLimits(f.kind, f.name).timeoutSeconds * 1000;
  const durationMax = (f: ServiceFunction) => f.fn.metricDuration({ statistic: 'Maximum', period: PERIOD, label: f.name });
  const durationShare = new Map<string, cloudwatch.MathExpression>();
  for (const f of functions) {
    const d = `d${ids.get(f.name)}`;
    durationShare.set(
      f.name,
      new cloudwatch.MathExpression({
        expression: `100 * ${d} / ${timeoutMs(f)}`,
        usingMetrics: { [d]: durationMax(f) },
        label: f.name,
        period: PERIOD,
      }),
    );
  }
  const rollups: Rollup[] = [
    {
      id: 'LambdaErrors',
      read: (f) => f.fn.metricErrors({ statistic: 'Sum', period: PERIOD }),
      prefix: 'e',
      term: (id) => id,
      expression: (terms) => `SUM([${terms}])`,
      label: 'errors',
      says: 'A function raised an error (an unhandled fault or a timeout), one of',
      threshold: 1,
    },
    {
      id: 'LambdaThrottles',
      read: (f) => f.fn.metricThrottles({ statistic: 'Sum', period: PERIOD }),
      prefix: 't',
      term: (id) => id,
      expression: (terms) => `SUM([${terms}])`,
      label: 'throttles',
      says: 'Lambda throttled one of',
      threshold: 1,
    },
    {
      id: 'LambdaDuration',
      read: durationMax,
      prefix: 'd',
      term: (id, f) => `${id} / ${timeoutMs(f)}`,
      expression: (terms) => `100 * MAX([${terms}])`,
      label: 'longest run, % of timeout',
      says: `A run took ${THRESHOLDS.durationPercentOfTimeout}% or more of its function's timeout, one of`,
      threshold: THRESHOLDS.durationPercentOfTimeout,
    },
  ];
  for (const kind of KINDS) {
    const runs = chunks(
      functions.filter((f) => f.kind === kind),
      ALARM_METRICS_MAX,
    );
    runs.forEach((run, i) => {
      const suffix = runs.length > 1 ? `${kind}-${i + 1}` : kind;
      for (const r of rollups) {
        const idOf = (f: ServiceFunction) => `${r.prefix}${ids.get(f.name)}`;
        kit.child(
          `${r.id}-${suffix}`,
          'ticket',
          new cloudwatch.MathExpression({
            expression: r.expression(run.map((f) => r.term(idOf(f), f)).join(', ')),
            usingMetrics: Object.fromEntries(run.map((f) => [idOf(f), r.read(f)])),
            label: `${r.label} (${suffix})`,
            period: PERIOD,
          }),
          `${r.says}: ${run.map((f) => f.name).join(', ')}`,
          { threshold: r.threshold },
        );
      }
    });
  }
  return { durationShare };
}
