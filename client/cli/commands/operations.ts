/** deployctl operations list | get | wait | cancel. */
import { OPERATION_STATUSES, OPERATION_TYPES } from '../../../functions/core/schemas.js';
import { oneOf, pageQuery, waitLimit } from '../args.js';
import { type Command, itemCommand, listCommand } from '../command.js';
import { print, showOperation } from '../format.js';
import { follow, operationOutcome } from '../progress.js';

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
  'operations get': itemCommand('operation-id', (api, id) => api.getOperation(id), showOperation),
  'operations wait': {
    args: ['operation-id'],
    options: ['timeout'],
    async run(r) {
      const id = r.args[0]!;
      const op = await follow(r, id, id, waitLimit(r.values));
      print(r.ctx, r.values.json, op, showOperation);
      return operationOutcome(r, op);
    },
  },
  'operations cancel': itemCommand(
    'operation-id',
    (api, id) => api.cancelOperation(id),
    (o) => `Operation ${o.id} is ${o.status}.`,
  ),
};
