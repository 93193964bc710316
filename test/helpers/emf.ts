/**
 * The CloudWatch embedded metric format lines functions/lib/metrics.ts writes (through
 * Powertools Metrics), read back as the tests check them: one metric per line, its name,
 * unit, dimension names and values, and its value or values.
 */

export interface EmfLine {
  _aws: {
    Timestamp: number;
    CloudWatchMetrics: { Namespace: string; Dimensions: string[][]; Metrics: { Name: string; Unit: string }[] }[];
  };
  [key: string]: unknown;
}

export const isEmf = (line: Record<string, unknown>): line is EmfLine => typeof line._aws === 'object' && line._aws !== null;

/** What one line says: the metric, its unit, its dimensions with their values, and its values (one or more). */
export interface DataPoints {
  namespace: string;
  name: string;
  unit: string;
  dimensions: Record<string, string>;
  values: number[];
}

export function dataPoints(line: EmfLine): DataPoints {
  const [directive] = line._aws.CloudWatchMetrics;
  if (directive?.Metrics.length !== 1 || directive.Dimensions.length !== 1)
    throw new Error(`expected one metric with one dimension set: ${JSON.stringify(line._aws)}`);
  const [{ Name: name, Unit: unit }] = directive.Metrics as [{ Name: string; Unit: string }];
  const value = line[name] as number | number[];
  return {
    namespace: directive.Namespace,
    name,
    unit,
    dimensions: Object.fromEntries(directive.Dimensions[0]!.map((d) => [d, String(line[d])])),
    values: Array.isArray(value) ? value : [value],
  };
}

/** The EMF lines in some text (a log file's, a captured stream's), read. */
export function emfIn(text: string): DataPoints[] {
  return text
    .split('\n')
    .filter((l) => l.startsWith('{') && l.includes('"_aws"'))
    .map((l) => dataPoints(JSON.parse(l) as EmfLine));
}
