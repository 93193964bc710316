/**
 * Structured JSON logs, one object per line (CloudWatch Logs Insights and `jq`
 * read them as they are). Callers never pass secrets: API keys are referred to by id.
 */
type Level = 'debug' | 'info' | 'warn' | 'error';

const quiet = () => process.env.LOG_LEVEL === 'silent';

function write(level: Level, message: string, fields: Record<string, unknown>): void {
  if (quiet()) return;
  const line = JSON.stringify({ level, message, time: new Date().toISOString(), ...fields });
  (level === 'error' || level === 'warn' ? process.stderr : process.stdout).write(`${line}\n`);
}

export const log = {
  info: (message: string, fields: Record<string, unknown> = {}) => write('info', message, fields),
  warn: (message: string, fields: Record<string, unknown> = {}) => write('warn', message, fields),
  error: (message: string, fields: Record<string, unknown> = {}) => write('error', message, fields),
};

/** An error as loggable fields (name, message, stack): for logs only, never for responses. */
export const errorFields = (e: unknown): Record<string, unknown> =>
  e instanceof Error ? { error: { name: e.name, message: e.message, stack: e.stack } } : { error: String(e) };
