/**
 * The business metrics as CloudWatch reads them (functions/lib/metrics.ts, Powertools Metrics):
 * each metric of the catalogue on a line of its own, with its name, unit, exactly its declared
 * dimensions plus `service`, and its values; written when the invocation ends, and never
 * mixed with another invocation's when invocations share the process (the local host).
 */
import middy from '@middy/core';
import type { SQSEvent } from 'aws-lambda';
import { type DimensionsOf, METRIC_SERVICE, METRICS, type MetricKey } from '../../contract/metric-catalogue.js';
import { windowFull } from '../../functions/core/rate-limits.js';
import { handler as deliverWebhooks } from '../../functions/events/deliver-webhooks.js';
import { emit, publishMetrics } from '../../functions/lib/metrics.js';
import type { ApiMiddleware, ApiResponse } from '../../functions/middleware/api-request.js';
import { invocation } from '../../functions/middleware/invocation.js';
import { mapErrors } from '../../functions/middleware/map-errors.js';
import { requestMetrics } from '../../functions/middleware/request-metrics.js';
import { runAsFunction } from '../../local/current-function.js';
import { type DataPoints, dataPoints } from '../helpers/emf.js';
import { apiContext, apiEvent, logged } from '../helpers/middleware-request.js';

jest.mock('../../functions/app/webhook-deliveries.js', () => ({
  deliverOnce: jest.fn(async (m: { webhookId: string }) =>
    m.webhookId === 'wh_ok'
      ? { outcome: 'delivered', latencyMs: 240 }
      : m.webhookId === 'wh_late'
        ? { outcome: 'gave_up' }
        : m.webhookId === 'wh_gone'
          ? undefined
          : { outcome: 'retrying' },
  ),
}));

/** One data point of each metric, with a value of each of its dimensions. */
const SAMPLES: { [K in MetricKey]: [DimensionsOf<K>, number] } = {
  operationsStarted: [{ operation_type: 'deployment.create' }, 1],
  operationsSucceeded: [{ operation_type: 'dag_sync.trigger' }, 1],
  operationsFailed: [{ operation_type: 'deployment.destroy' }, 1],
  operationsCanceled: [{ operation_type: 'deployment.update' }, 1],
  phaseDuration: [{ operation_type: 'deployment.create', phase: 'provisioning_db' }, 12.5],
  webhookDeliveries: [{ outcome: 'retrying' }, 1],
  webhookDeliveryLatency: [{}, 830],
  requests: [{ route_group: 'deployments', status_class: '5xx' }, 1],
  requestLatency: [{ route_group: 'operations' }, 41],
  requestsThrottled: [{ reason: 'creations' }, 1],
};

/** Lines in a stable order (the series' objects are made as first used, so their order depends on earlier tests). */
const sorted = <T>(xs: T[]): T[] => [...xs].sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)));

async function published(fn: () => unknown): Promise<DataPoints[]> {
  const { metrics } = await logged(async () => {
    await fn();
    publishMetrics();
  });
  return metrics.map(dataPoints);
}

describe('emit', () => {
  it.each(Object.keys(SAMPLES) as MetricKey[])(
    'writes %s with its name, unit, declared dimensions plus service, and value',
    async (key) => {
      const [dimensions, value] = SAMPLES[key];
      const points = await published(() => emit(key, dimensions as never, value));
      const metric = METRICS[key];
      expect(points).toEqual([
        {
          namespace: 'DeploymentApi/local',
          name: metric.name,
          unit: metric.unit,
          dimensions: { service: METRIC_SERVICE, ...dimensions },
          values: [value],
        },
      ]);
      expect(Object.keys(points[0]!.dimensions).sort()).toEqual(['service', ...metric.dimensions].sort());
    },
  );

  it('keeps only the declared dimensions, puts values of one series on one line, and a series of its own on another', async () => {
    const points = await published(() => {
      emit('operationsFailed', { operation_type: 'deployment.create', phase: 'provisioning_db' } as never, 1);
      emit('operationsFailed', { operation_type: 'deployment.create' }, 1);
      emit('operationsFailed', { operation_type: 'app_user.provision' }, 1);
    });
    expect(sorted(points.map((p) => [p.name, p.dimensions, p.values]))).toEqual(
      sorted([
        ['OperationsFailed', { service: METRIC_SERVICE, operation_type: 'deployment.create' }, [1, 1]],
        ['OperationsFailed', { service: METRIC_SERVICE, operation_type: 'app_user.provision' }, [1]],
      ]),
    );
  });

  it('writes nothing, not even a warning, when the invocation recorded nothing', async () => {
    const { lines, metrics } = await logged(async () => publishMetrics());
    expect([lines, metrics]).toEqual([[], []]);
  });

  it('keeps concurrent invocations’ data points apart: each writes only its own', async () => {
    const one = (fn: string, type: 'deployment.create' | 'deployment.destroy', n: number) =>
      runAsFunction(fn, async () => {
        for (let i = 0; i < n; i++) {
          emit('operationsStarted', { operation_type: type }, 1);
          await new Promise((r) => setImmediate(r));
        }
        const { metrics } = await logged(async () => publishMetrics());
        return metrics.map(dataPoints);
      });
    const [a, b] = await Promise.all([one('create-deployment', 'deployment.create', 3), one('delete-deployment', 'deployment.destroy', 2)]);
    expect(a!.map((p) => [p.dimensions.operation_type, p.values])).toEqual([['deployment.create', [1, 1, 1]]]);
    expect(b!.map((p) => [p.dimensions.operation_type, p.values])).toEqual([['deployment.destroy', [1, 1]]]);
  });
});

describe('the request metrics', () => {
  const stack = (answer: () => Promise<ApiResponse>) =>
    middy(answer)
      .use(invocation() as ApiMiddleware)
      .use(requestMetrics('deployments'))
      .use(mapErrors());

  it('count an answer by route group and status class, and time it, as the invocation ends', async () => {
    const { metrics } = await logged(() => stack(async () => ({ statusCode: 201, headers: {}, body: '' }))(apiEvent(), apiContext()));
    const points = metrics.map(dataPoints);
    expect(points).toHaveLength(2);
    expect(points).toContainEqual({
      namespace: 'DeploymentApi/local',
      name: 'Requests',
      unit: 'Count',
      dimensions: { service: METRIC_SERVICE, route_group: 'deployments', status_class: '2xx' },
      values: [1],
    });
    expect(points).toContainEqual({
      namespace: 'DeploymentApi/local',
      name: 'RequestLatency',
      unit: 'Milliseconds',
      dimensions: { service: METRIC_SERVICE, route_group: 'deployments' },
      values: [expect.any(Number)],
    });
  });

  it('count a 429 of a limit by the limit, and a fault as 5xx', async () => {
    const limits = { perHour: 100, perMinute: 10, createsPerHour: 5 };
    const throttled = await logged(() =>
      stack(async () => {
        throw windowFull(limits, { hour: 11, minute: 11 }, new Date());
      })(apiEvent(), apiContext({})),
    );
    expect(sorted(throttled.metrics.map(dataPoints).map((p) => [p.name, p.dimensions]))).toEqual(
      sorted([
        ['Requests', { service: METRIC_SERVICE, route_group: 'deployments', status_class: '4xx' }],
        ['RequestLatency', { service: METRIC_SERVICE, route_group: 'deployments' }],
        ['RequestsThrottled', { service: METRIC_SERVICE, reason: 'burst' }],
      ]),
    );
    const fault = await logged(() =>
      stack(async () => {
        throw new Error('boom');
      })(apiEvent(), apiContext({})),
    );
    expect(sorted(fault.metrics.map(dataPoints).map((p) => [p.name, p.dimensions.status_class ?? null]))).toEqual(
      sorted([
        ['Requests', '5xx'],
        ['RequestLatency', null],
      ]),
    );
  });
});

describe('the webhook deliverer', () => {
  it('counts each attempt by how it ended, and a delivered one’s latency, in one line per series', async () => {
    const message = (webhookId: string) => ({
      messageId: webhookId,
      body: JSON.stringify({ orgId: 'o', webhookId, eventSequence: 1, attempt: 1 }),
    });
    const event = { Records: ['wh_ok', 'wh_ok', 'wh_down', 'wh_late', 'wh_gone'].map(message) } as unknown as SQSEvent;
    const { metrics } = await logged(() => deliverWebhooks(event));
    expect(sorted(metrics.map(dataPoints).map((p) => [p.name, p.dimensions, p.values]))).toEqual(
      sorted([
        ['WebhookDeliveries', { service: METRIC_SERVICE, outcome: 'delivered' }, [1, 1]],
        ['WebhookDeliveryLatency', { service: METRIC_SERVICE }, [240, 240]],
        ['WebhookDeliveries', { service: METRIC_SERVICE, outcome: 'retrying' }, [1]],
        ['WebhookDeliveries', { service: METRIC_SERVICE, outcome: 'gave_up' }, [1]],
      ]),
    );
  });
});
