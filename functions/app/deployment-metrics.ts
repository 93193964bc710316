/**
 * GET /deployments/{id}/metrics (decision 49): the query checked and aligned by
 * core/metrics-range.ts, the deployment found, and the driver asked for the window's series
 * over the times the deployment ran. Times are Unix seconds up to here, ISO 8601 in the answer.
 */

import { invalidRequest } from '../../contract/errors.js';
import type { Metrics } from '../../contract/monitoring-schemas.js';
import { hostingPlatform } from '../adapters/platform/hosting-platform.js';
import type { DeploymentRecord } from '../core/deployments.js';
import { cutHibernated } from '../core/hibernation.js';
import { METRIC_UNITS, type MetricsQuery, metricsWindow, type RunInterval } from '../core/metrics-range.js';
import type { HostingPlatform } from '../core/platform.js';
import { findDeployment } from './lookups.js';

const seconds = (iso: string) => Math.floor(Date.parse(iso) / 1000);
const iso = (unixSeconds: number) => new Date(unixSeconds * 1000).toISOString();

/**
 * When the deployment ran: from its create's success to its destroy's, less the spans it was
 * hibernated (decision 50). A record stored before `ready_at` was kept counts from its creation when it was
 * ever ready; one that never was has no run.
 */
export function runsOf(d: DeploymentRecord): RunInterval[] {
  const everReady = d.ready_at !== undefined || d.status === 'ready' || d.status === 'destroying' || d.status === 'destroyed';
  if (!everReady) return [];
  const to = d.destroyed_at ?? (d.status === 'destroyed' ? d.updated_at : undefined);
  return cutHibernated(
    [{ from: seconds(d.ready_at ?? d.created_at), to: to === undefined ? null : seconds(to) }],
    d.hibernated_spans ?? [],
  );
}

export async function deploymentMetrics(
  orgId: string,
  id: string,
  query: MetricsQuery,
  now: Date,
  platform: HostingPlatform = hostingPlatform(),
): Promise<Metrics> {
  const asked = metricsWindow(query, now.getTime());
  if (!asked.ok) throw invalidRequest(asked.issues.map((i) => `${i.field} ${i.issue}`).join('; '), asked.issues);
  const { window } = asked;
  const d = await findDeployment(orgId, id);
  const target = { orgId, deploymentId: d.id, appType: d.app_type, name: d.name, size: d.config.size };
  const series = platform.metrics
    ? await platform.metrics(target, window, runsOf(d))
    : window.metrics.map((metric) => ({ metric, unit: METRIC_UNITS[metric], points: [] }));
  return {
    start: iso(window.start),
    end: iso(window.end),
    period: window.period,
    series: series.map((s) => ({ ...s, points: s.points.map((p) => ({ time: iso(p.time), value: p.value })) })),
  };
}
