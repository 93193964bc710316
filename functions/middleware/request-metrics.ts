/**
 * Second in, second to last out: each answer counted by its route group and status class,
 * its latency from the event received to the answer, and a 429 of a limit
 * (core/rate-limits.ts) counted by that limit (contract/metric-catalogue.ts). It reads the wire
 * response after every other middleware made it, the error mapping's included; the
 * invocation frame writes the lines as it ends (invocation.ts).
 */
import { ApiError } from '../../contract/errors.js';
import type { StatusClass } from '../../contract/metric-catalogue.js';
import { emit } from '../lib/metrics.js';
import { type ApiMiddleware, type ApiRequest, wireResponse } from './api-request.js';

const statusClass = (status: number): StatusClass => (status >= 500 ? '5xx' : status >= 400 ? '4xx' : status >= 300 ? '3xx' : '2xx');

export const requestMetrics = (routeGroup: string): ApiMiddleware => {
  const received = new WeakMap<ApiRequest, number>();
  const record = (request: ApiRequest) => {
    const response = wireResponse(request.response);
    // An error nothing answered fails the invocation: Lambda's own metrics count it.
    if (!response) return;
    emit('requests', { route_group: routeGroup, status_class: statusClass(response.statusCode) }, 1);
    emit('requestLatency', { route_group: routeGroup }, Date.now() - (received.get(request) ?? Date.now()));
    const { error } = request;
    if (error instanceof ApiError && error.options.limit && response.statusCode === 429)
      emit('requestsThrottled', { reason: error.options.limit }, 1);
  };
  return {
    before(request) {
      received.set(request, Date.now());
    },
    after: record,
    onError: record,
  };
};
