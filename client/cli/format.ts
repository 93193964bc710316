/** How deployctl prints: JSON, tables (cli-kit/text.ts, shared with the operator CLIs), and one resource as aligned fields. */

import { oneLine } from '../../cli-kit/text.js';
import type { ConfigChange, Deployment, Operation, Pagination, Webhook } from '../client.js';
import { type CliContext, out } from './context.js';

export const json = (ctx: CliContext, value: unknown) => out(ctx, JSON.stringify(value, null, 2));

/** One resource: as JSON with --json, else in its human form. */
export function print<T>(ctx: CliContext, asJson: boolean | undefined, item: T, show: (item: T) => string): void {
  if (asJson) json(ctx, item);
  else out(ctx, show(item));
}

export function pageFooter(p: Pick<Pagination, 'page' | 'pages' | 'total'>): string {
  return `page ${p.page} of ${Math.max(p.pages, 1)}, ${p.total} in total`;
}

/** Aligned `key: value` lines; a value of several lines (`\n`-joined by the caller) continues under the first, each line kept to one. */
function fields(pairs: [string, string | undefined | null][]): string {
  const shown = pairs.filter(([, v]) => v !== undefined && v !== null) as [string, string][];
  const width = Math.max(...shown.map(([k]) => k.length));
  return shown
    .map(([k, v]) => {
      const [first, ...rest] = k === 'env' ? v.split('\n') : [v];
      return [`${`${k}:`.padEnd(width + 1)} ${oneLine(first!)}`, ...rest.map((line) => `${' '.repeat(width + 2)}${oneLine(line)}`)].join(
        '\n',
      );
    })
    .join('\n');
}

/** One env entry as shown: a plain value, or that a secret is set (its value never leaves the API). */
const envEntry = (entry: Deployment['config']['env'][string]) => ('value' in entry ? entry.value : '(secret, set)');

export const showDeployment = (d: Deployment) => {
  const env = Object.entries(d.config.env).sort(([a], [b]) => a.localeCompare(b));
  return fields([
    ['id', d.id],
    ['name', d.name],
    ['app_type', d.app_type],
    ['status', d.status],
    ['url', d.url],
    // Decision 50: awake or hibernated, with a manual hold's end.
    ['hibernation', d.hibernation && `${d.hibernation.state}${d.hibernation.until ? ` until ${d.hibernation.until}` : ''}`],
    ['environment', d.environment_id],
    ['created_at', d.created_at],
    ['revision', String(d.revision)],
    ['updated_at', d.updated_at],
    ['app_version', d.config.app_version],
    ['size', d.config.size],
    // Each entry escaped to one line first: a line break in a value must not pass for another entry.
    ['env', env.length ? env.map(([name, entry]) => oneLine(`${name}=${envEntry(entry)}`)).join('\n') : '(none)'],
    ['schedules', d.config.hibernation ? oneLine(JSON.stringify(d.config.hibernation)) : undefined],
    ['operation', d.links.operation],
  ]);
};

export const showOperation = (o: Operation) =>
  fields([
    ['id', o.id],
    ['type', o.type],
    ['status', o.status],
    ['phase', o.progress.phase],
    ['message', o.progress.message],
    ['resource', `${o.resource.type} ${o.resource.id}`],
    ['requested_at', o.requested_at],
    ['started_at', o.started_at],
    ['ended_at', o.ended_at],
    ['error', o.error ? `${o.error.code}: ${o.error.message}` : undefined],
    ['result', o.result ? JSON.stringify(o.result) : undefined],
  ]);

export const showWebhook = (w: Webhook) =>
  fields([
    ['id', w.id],
    ['url', w.url],
    ['events', w.events.join(', ')],
    ['description', w.description],
    ['created_at', w.created_at],
  ]);

/** A configuration value as a change shows it: a secret's never, which the API does not send either. */
const shownValue = (v: NonNullable<ConfigChange['to']>) =>
  typeof v === 'string' ? v : 'schedules' in v ? JSON.stringify(v) : v.secret ? '(secret)' : JSON.stringify(v.value);

/** What an update changes, one line per changed field: `+` added, `- ` removed, `~` changed; "No change." for none. */
export function showChanges(changes: readonly ConfigChange[]): string {
  if (changes.length === 0) return 'No change.';
  return changes
    .map(({ field, from, to }) =>
      from === null ? `+ ${field}: ${shownValue(to!)}` : to === null ? `- ${field}` : `~ ${field}: ${shownValue(from)} → ${shownValue(to)}`,
    )
    .join('\n');
}
