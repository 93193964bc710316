/**
 * The simulated platform's health and metrics (decisions 48 and 49): every component is
 * healthy except those the deployment's configuration names in its env entry
 * SIMULATE_UNHEALTHY (comma-separated component names); the metrics are made up by
 * simulated-metrics.ts. Nothing is read or stored: both follow from what they are given.
 */
import type { ConfigView } from '../../core/deployment-config.js';
import { type ComponentObservation, HEALTH_COMPONENTS } from '../../core/health.js';
import type { HostingPlatform } from '../../core/platform.js';
import { simulatedMetrics } from './simulated-metrics.js';

export const SIMULATE_UNHEALTHY = 'SIMULATE_UNHEALTHY';

/** The component names a configuration makes unhealthy (a secret entry is not read: its value is not in the view). */
export function simulatedUnhealthy(config: ConfigView): Set<string> {
  const entry = config.env[SIMULATE_UNHEALTHY];
  const value = entry && !entry.secret ? entry.value : '';
  return new Set(
    value
      .split(',')
      .map((n) => n.trim())
      .filter(Boolean),
  );
}

export function simulatedMonitoring(now: () => number): Required<Pick<HostingPlatform, 'health' | 'metrics'>> {
  return {
    async health(target, config): Promise<ComponentObservation[]> {
      const unhealthy = simulatedUnhealthy(config);
      return HEALTH_COMPONENTS[target.appType].map((name) =>
        unhealthy.has(name)
          ? { name, status: 'unhealthy', message: `The simulated ${name} is down (${SIMULATE_UNHEALTHY} names it).` }
          : { name, status: 'healthy', message: null },
      );
    },
    async metrics(target, window, runs) {
      return simulatedMetrics(target.deploymentId, target.size, window, runs, Math.floor(now() / 1000));
    },
  };
}
