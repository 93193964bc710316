/** deployctl environments list. */
import { pageQuery } from '../args.js';
import { type Command, listCommand } from '../command.js';

export const environmentCommands: Record<string, Command> = {
  'environments list': listCommand({
    list: ({ api, values }) => api.listEnvironments(pageQuery(values)),
    header: ['ID', 'NAME', 'DEFAULT', 'CREATED'],
    row: (e) => [e.id, e.name, e.is_default ? 'yes' : 'no', e.created_at],
  }),
};
