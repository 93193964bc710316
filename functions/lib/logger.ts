/**
 * The process's one logger: Powertools for AWS Lambda's Logger (decision 180). JSON lines
 * (`level`, `message`, `timestamp`, `service`, the invocation's Lambda context,
 * `xray_trace_id`, then the appended keys and the line's own fields; an Error as
 * `{ name, location, message, stack, cause }`, its stack pointing at the TypeScript
 * sources). INFO and DEBUG go to stdout, WARN and above to stderr; Lambda sends both to the
 * function's log group. Callers never pass secrets: API keys are referred to by id, never by
 * value, hash or header.
 *
 * The level is Lambda's advanced logging control when the function has one
 * (`AWS_LAMBDA_LOG_LEVEL`, set by infra/aws/functions.ts), else `POWERTOOLS_LOG_LEVEL` or
 * `LOG_LEVEL` (in any case; INFO when unset). DEBUG lines are buffered per invocation (by
 * its X-Ray trace id) and written only when the invocation logs an error; otherwise they
 * are dropped when it ends (functions/middleware/invocation.ts).
 *
 * The appended keys, the Lambda context, the level and the buffer belong to one
 * invocation: Lambda runs one at a time per process, and the entry points drop them as an
 * invocation ends. The local host runs many at once in one process, as Lambda's managed
 * instances do: it sets `AWS_LAMBDA_MAX_CONCURRENCY` and runs each invocation in its own
 * context of the InvokeStore (local/current-function.ts), where Powertools keeps
 * that state, so one request's keys never land on another's lines.
 */
import { LogFormatter, Logger, LogItem } from '@aws-lambda-powertools/logger';
import type { LogAttributes, LogLevel, UnformattedAttributes } from '@aws-lambda-powertools/logger/types';
import { METRIC_SERVICE } from '../../contract/metric-catalogue.js';
import { sourceStack } from './source-stack.js';

/** Powertools' own line shape, with each logged error's stack mapped to the sources through the bundle's source map. */
class SourceMappedFormatter extends LogFormatter {
  formatAttributes(a: UnformattedAttributes, additional: LogAttributes): LogItem {
    const context = a.lambdaContext;
    return new LogItem({
      attributes: {
        level: a.logLevel,
        message: a.message,
        timestamp: this.formatTimestamp(a.timestamp),
        service: a.serviceName,
        cold_start: context?.coldStart,
        function_arn: context?.invokedFunctionArn,
        function_memory_size: context?.memoryLimitInMB,
        function_name: context?.functionName,
        function_request_id: context?.awsRequestId,
        xray_trace_id: a.xRayTraceId,
      },
    }).addAttributes(additional);
  }

  override formatError(error: Error): LogAttributes {
    const formatted = super.formatError(error);
    if (typeof formatted.stack !== 'string') return formatted;
    const stack = sourceStack(formatted.stack);
    return { ...formatted, location: this.getCodeLocation(stack), stack };
  }
}

/** A logger as the environment sets it: the process has one (`logger`); the tests make their own. */
export function createLogger(env: NodeJS.ProcessEnv = process.env): Logger {
  return new Logger({
    // The same `service` as the metrics' dimension (POWERTOOLS_SERVICE_NAME, set by the stack).
    serviceName: env.POWERTOOLS_SERVICE_NAME || METRIC_SERVICE,
    // Powertools reads LOG_LEVEL itself only in capitals; lower case (`warn`, `silent`) is taken here.
    logLevel: (env.POWERTOOLS_LOG_LEVEL || env.LOG_LEVEL || 'INFO').toUpperCase() as LogLevel,
    logFormatter: new SourceMappedFormatter(),
    logBufferOptions: { bufferAtVerbosity: 'DEBUG', flushOnErrorLog: true },
  });
}

export const logger = createLogger();
