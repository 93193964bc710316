/** deployctl deployments health | metrics (decisions 48 and 49). */

import { table } from '../../../cli-kit/text.js';
import { METRIC_NAMES } from '../../../contract/vocabulary.js';
import { oneOf, UsageError } from '../args.js';
import type { Command } from '../command.js';
import { EXIT, out } from '../context.js';
import { json } from '../format.js';

/** How far back --since reaches, and the period that gives a chart of 60 or so points. */
const SINCE: Record<string, { seconds: number; period: string }> = {
  '1h': { seconds: 3600, period: '60' },
  '1d': { seconds: 86_400, period: '300' },
  '7d': { seconds: 7 * 86_400, period: '3600' },
};

const BLOCKS = '▁▂▃▄▅▆▇█';

/** A line of Unicode blocks, one per value (the last `width` of them), scaled from 0 to the largest. */
export function sparkline(values: readonly number[], width = 72): string {
  const shown = values.slice(-width);
  const top = Math.max(...shown, 0);
  return shown.map((v) => BLOCKS[top === 0 ? 0 : Math.min(BLOCKS.length - 1, Math.floor((v / top) * (BLOCKS.length - 1)))]).join('');
}

export const monitoringCommands: Record<string, Command> = {
  'deployments health': {
    args: ['deployment-id'],
    options: [],
    async run({ api, args, values, ctx }) {
      const health = await api.getDeploymentHealth(args[0]!);
      if (values.json) json(ctx, health);
      else {
        out(ctx, `Health: ${health.status} since ${health.since} (checked ${health.checked_at ?? 'never'})`);
        if (health.components.length)
          out(
            ctx,
            table([
              ['COMPONENT', 'STATUS', 'SINCE', 'MESSAGE'],
              ...health.components.map((c) => [c.name, c.status, c.since, c.message ?? '']),
            ]).join('\n'),
          );
      }
      // For scripts: 0 only when healthy.
      return health.status === 'healthy' ? EXIT.ok : EXIT.operationFailed;
    },
  },
  'deployments metrics': {
    args: ['deployment-id'],
    options: ['metric', 'since'],
    async run({ api, args, values, ctx, clock }) {
      const metric = oneOf('metric', values.metric, METRIC_NAMES);
      const since = SINCE[values.since ?? '1h'];
      if (!since) throw new UsageError('--since must be 1h, 1d or 7d');
      const end = clock.now();
      const data = await api.getDeploymentMetrics(args[0]!, {
        ...(metric ? { metrics: metric } : {}),
        start: new Date(end - since.seconds * 1000).toISOString(),
        end: new Date(end).toISOString(),
        period: since.period,
      });
      if (values.json) json(ctx, data);
      else {
        out(ctx, `${data.start} .. ${data.end}, one point per ${data.period} s`);
        for (const s of data.series) {
          const points = s.points.map((p) => p.value);
          const last = points.at(-1);
          out(ctx, `${s.metric} (${s.unit})  last ${last ?? '-'}  max ${points.length ? Math.max(...points) : '-'}`);
          out(ctx, `  ${points.length ? sparkline(points) : '(no data)'}`);
        }
      }
      return EXIT.ok;
    },
  },
};
