/** deployctl webhooks create | list | get | delete | deliveries. */
import { EVENT_TYPES } from '../../../contract/vocabulary.js';
import { listOf, pageQuery, UsageError } from '../args.js';
import { type Command, itemCommand, listCommand } from '../command.js';
import { EXIT, out } from '../context.js';
import { json, showWebhook } from '../format.js';

export const webhookCommands: Record<string, Command> = {
  'webhooks create': {
    args: [],
    options: ['url', 'events', 'description'],
    async run({ api, values, ctx }) {
      if (!values.url) throw new UsageError('--url is required (an https URL the service can reach)');
      const events = listOf('events', values.events, EVENT_TYPES);
      const made = await api.createWebhook({
        url: values.url,
        ...(events ? { events } : {}),
        ...(values.description !== undefined ? { description: values.description } : {}),
      });
      if (values.json) json(ctx, made);
      else {
        out(ctx, showWebhook(made));
        out(ctx, `\nSigning secret (shown only this once; store it now, e.g. as WEBHOOK_SECRET):\n\n  ${made.secret}\n`);
      }
      return EXIT.ok;
    },
  },
  'webhooks list': listCommand({
    list: ({ api, values }) => api.listWebhooks(pageQuery(values)),
    header: ['ID', 'URL', 'EVENTS', 'CREATED'],
    row: (w) => [w.id, w.url, w.events.join(','), w.created_at],
    empty: 'No webhooks.',
  }),
  'webhooks get': itemCommand('webhook-id', (api, id) => api.getWebhook(id), showWebhook),
  'webhooks delete': itemCommand(
    'webhook-id',
    (api, id) => api.deleteWebhook(id),
    (d) => `Webhook ${d.id} deleted.`,
  ),
  'webhooks deliveries': listCommand({
    arg: 'webhook-id',
    list: ({ api, args, values }) => api.listWebhookDeliveries(args[0]!, pageQuery(values)),
    header: ['EVENT', 'ATTEMPT', 'ATTEMPTED', 'STATUS', 'SUCCEEDED'],
    row: (d) => [
      d.event_id,
      String(d.attempt),
      d.attempted_at,
      d.status_code === null ? '-' : String(d.status_code),
      d.succeeded ? 'yes' : 'no',
    ],
    empty: 'No deliveries yet.',
  }),
};
