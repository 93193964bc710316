/**
 * The process's one logger: Powertools for AWS Lambda, structured JSON, one object per
 * line. The HTTP stack appends request id, route, key id and organization to every line
 * of a request. Callers never pass secrets: API keys are referred to by id, never by
 * value, hash or header.
 */
import { Logger } from '@aws-lambda-powertools/logger';

const LEVELS = ['TRACE', 'DEBUG', 'INFO', 'WARN', 'ERROR', 'CRITICAL', 'SILENT'] as const;
type Level = (typeof LEVELS)[number];

/** LOG_LEVEL in any case (e.g. `debug`, `silent`); INFO when unset or unknown. */
function levelFrom(raw: string | undefined): Level {
  const upper = raw?.toUpperCase();
  return LEVELS.find((l) => l === upper) ?? 'INFO';
}

export const logger = new Logger({ serviceName: 'deployment-management-api', logLevel: levelFrom(process.env.LOG_LEVEL) });
