/**
 * The frame of every invocation, of every function: first in, last out. On the way in it
 * drops whatever keys a warm process still holds, puts the invocation's Lambda context
 * (function, request id, cold start) and its correlation id on every log line (decision
 * 180: the API Gateway request id for a request, the operation id for a workflow step, the
 * event id for a dispatched event); on the way out, with an answer or an error, it writes
 * the metrics the invocation recorded (lib/metrics.ts), drops its buffered DEBUG lines
 * (an error logged meanwhile has written them) and its keys, so nothing of it reaches the
 * next invocation.
 */
import middy, { type MiddlewareObj } from '@middy/core';
import type { Context } from 'aws-lambda';
import { logger } from '../lib/logger.js';
import { publishMetrics } from '../lib/metrics.js';

function end(): void {
  publishMetrics();
  logger.clearBuffer();
  logger.resetKeys();
}

export function invocation<E>(correlationIdOf?: (event: E) => string | undefined): MiddlewareObj<E, unknown, Error, Context> {
  return {
    before(request) {
      logger.resetKeys();
      logger.refreshSampleRateCalculation();
      // A test may call a handler with no context; Lambda and the local host always pass one.
      if (request.context.awsRequestId) logger.addContext(request.context);
      const id = correlationIdOf?.(request.event);
      if (id) logger.setCorrelationId(id);
    },
    after: end,
    onError: end,
  };
}

/**
 * A function that Step Functions, a stream or a queue invokes: its work inside the
 * invocation's frame. Lambda passes the context; a test may leave it out.
 */
export const lambdaFunction = <E, R>(
  work: (event: E) => Promise<R>,
  correlationIdOf?: (event: E) => string | undefined,
): ((event: E, context?: Context) => Promise<R>) =>
  middy<E, R, Error, Context>()
    .use(invocation<E>(correlationIdOf) as MiddlewareObj<E, R, Error, Context>)
    .handler(work) as (event: E, context?: Context) => Promise<R>;
