/** deployctl operations list | get | logs | wait | cancel. */
import { OPERATION_STATUSES, OPERATION_TYPES } from '../../../contract/vocabulary.js';
import type { OperationLogLine } from '../../client.js';
import { followOperationLogs } from '../../logs.js';
import { nonNegativeInt, oneOf, pageQuery, waitLimit } from '../args.js';
import { type Command, itemCommand, listCommand, type Run } from '../command.js';
import { EXIT, err, out } from '../context.js';
import { json, print, showOperation } from '../format.js';
import { explainEnd, follow, logLine, operationOutcome } from '../progress.js';

/** Every line of the log after `after`, oldest first: the pages from the one that holds line after + 1. */
async function readLog(r: Run, id: string, after: number): Promise<OperationLogLine[]> {
  const lines: OperationLogLine[] = [];
  for (let page = Math.floor(after / 100) + 1; ; page++) {
    const got = await r.api.listOperationLogs(id, { page, per_page: 100 });
    lines.push(...got.items.filter((l) => l.sequence > after));
    if (page >= got.pagination.pages) return lines;
  }
}

export const operationCommands: Record<string, Command> = {
  'operations list': listCommand({
    options: ['status', 'type', 'resource-id'],
    list: ({ api, values }) =>
      api.listOperations({
        status: oneOf('status', values.status, OPERATION_STATUSES),
        type: oneOf('type', values.type, OPERATION_TYPES),
        resource_id: values['resource-id'],
        ...pageQuery(values),
      }),
    header: ['ID', 'TYPE', 'STATUS', 'PHASE', 'RESOURCE', 'REQUESTED'],
    row: (o) => [o.id, o.type, o.status, o.progress.phase, o.resource.id, o.requested_at],
    empty: 'No operations.',
  }),
  'operations get': {
    args: ['operation-id'],
    options: [],
    async run(r) {
      const op = await r.api.getOperation(r.args[0]!);
      print(r.ctx, r.values.json, op, showOperation);
      // A failure says where, whether to retry, and the end of its log (the get itself succeeded: exit 0; decision 45).
      if (!r.values.json) await explainEnd(r, op);
      return EXIT.ok;
    },
  },
  'operations logs': {
    args: ['operation-id'],
    options: ['follow', 'since'],
    async run(r) {
      const id = r.args[0]!;
      const after = nonNegativeInt('since', r.values.since) ?? 0;
      if (!r.values.follow) {
        const lines = await readLog(r, id, after);
        if (r.values.json) json(r.ctx, lines);
        else if (!lines.length) out(r.ctx, 'No log lines.');
        else for (const l of lines) out(r.ctx, logLine(l));
        return EXIT.ok;
      }
      let last = after;
      try {
        const logs = followOperationLogs(r.api, id, { after, clock: r.clock, random: r.ctx.random, signal: r.ctx.signal });
        for (;;) {
          const next = await logs.next();
          if (next.done) return await operationOutcome(r, next.value);
          last = next.value.sequence;
          if (r.values.json) out(r.ctx, JSON.stringify(next.value));
          else out(r.ctx, logLine(next.value));
        }
      } catch (e) {
        if (r.ctx.signal?.aborted) {
          err(r.ctx, `Stopped following; operation ${id} goes on. Resume with: deployctl operations logs ${id} --follow --since ${last}`);
          return EXIT.interrupted;
        }
        throw e;
      }
    },
  },
  'operations wait': {
    args: ['operation-id'],
    options: ['timeout'],
    async run(r) {
      const id = r.args[0]!;
      const op = await follow(r, id, id, waitLimit(r.values));
      print(r.ctx, r.values.json, op, showOperation);
      return await operationOutcome(r, op);
    },
  },
  'operations cancel': itemCommand(
    'operation-id',
    (api, id) => api.cancelOperation(id),
    (o) => `Operation ${o.id} is ${o.status}.`,
  ),
};
