/** What a deployctl command is, and the two shapes most of them have: a list, and one resource by id. */
import { table } from '../../cli-kit/text.js';
import type { DeploymentsClient, Pagination } from '../client.js';
import type { Clock } from '../wait.js';
import type { OptionName, Values } from './args.js';
import { type CliContext, EXIT, out } from './context.js';
import { json, pageFooter, print } from './format.js';

export interface Run {
  api: DeploymentsClient;
  args: string[];
  values: Values;
  ctx: CliContext;
  clock: Clock;
}

export interface Command {
  /** Positional arguments after the two command words. */
  args: string[];
  /** The options it takes besides --json and --help. */
  options: OptionName[];
  run(r: Run): Promise<number>;
}

/** A list command: --page and --per-page, a table and the page footer (or the page as JSON). */
export function listCommand<T>(spec: {
  /** The positional argument it takes, if any (the list's parent, e.g. a webhook id). */
  arg?: string;
  /** Its options besides --page and --per-page. */
  options?: OptionName[];
  list(r: Run): Promise<{ items: T[]; pagination: Pagination }>;
  header: string[];
  row(item: T): string[];
  /** Printed instead of a table with no rows. */
  empty?: string;
}): Command {
  return {
    args: spec.arg ? [spec.arg] : [],
    options: ['page', 'per-page', ...(spec.options ?? [])],
    async run(r) {
      const page = await spec.list(r);
      if (r.values.json) json(r.ctx, page);
      else {
        if (page.items.length === 0 && spec.empty) out(r.ctx, spec.empty);
        else out(r.ctx, table([spec.header, ...page.items.map(spec.row)]).join('\n'));
        out(r.ctx, pageFooter(page.pagination));
      }
      return EXIT.ok;
    },
  };
}

/** A command on one resource named by its id, printing what the API answers. */
export function itemCommand<T>(arg: string, call: (api: DeploymentsClient, id: string) => Promise<T>, show: (item: T) => string): Command {
  return {
    args: [arg],
    options: [],
    async run({ api, args, values, ctx }) {
      print(ctx, values.json, await call(api, args[0]!), show);
      return EXIT.ok;
    },
  };
}
