/**
 * The document's top-level `webhooks` (OpenAPI 3.1): for each event type, the POST the
 * service sends to a webhook's URL (decision 38, Standard Webhooks). The body is the
 * `Event` schema; the headers are components; the retry delays come from the
 * configuration (WEBHOOK_RETRY_SCHEDULE), like the limits in the description.
 */
import type { OpenAPIRegistry } from '@asteasolutions/zod-to-openapi';
import type { EventType } from '../../contract/schemas.js';
import { EVENT_TYPES } from '../../contract/vocabulary.js';
import { SIGNATURE_SCHEME, WEBHOOK_SECRET_PREFIX } from '../../contract/webhook-signature.js';
import { config } from '../lib/config.js';
import { eventExampleOf } from './openapi-examples.js';
import { ref } from './openapi-refs.js';

/** The replay window the client's verifyWebhook applies by default (and Standard Webhooks recommends). */
const RECEIVER_TOLERANCE_MINUTES = 5;

const DELIVERY_HEADERS = {
  WebhookIdHeader: {
    name: 'webhook-id',
    in: 'header',
    required: true,
    schema: { type: 'string', pattern: '^evt_[0-9a-f-]{36}$' },
    description: "The event's id: the same on every attempt to deliver it, so a receiver can skip an event it has already handled.",
  },
  WebhookTimestampHeader: {
    name: 'webhook-timestamp',
    in: 'header',
    required: true,
    schema: { type: 'integer', minimum: 0 },
    description: `When this attempt was sent, in Unix seconds (each retry has its own). Refuse a delivery more than ${RECEIVER_TOLERANCE_MINUTES} minutes from your clock, either way: it may be a replay.`,
  },
  WebhookSignatureHeader: {
    name: 'webhook-signature',
    in: 'header',
    required: true,
    schema: { type: 'string', pattern: `^${SIGNATURE_SCHEME},[A-Za-z0-9+/]+={0,2}( .+)?$` },
    description: `\`${SIGNATURE_SCHEME},<signature>\`: the base64 HMAC-SHA256 of \`<webhook-id>.<webhook-timestamp>.<body>\` (the body exactly as received), keyed with the bytes that the webhook secret's part after \`${WEBHOOK_SECRET_PREFIX}\` decodes to (base64). There may be several, separated by spaces: accept the delivery when any \`${SIGNATURE_SCHEME}\` one matches, comparing in constant time. The TypeScript client's \`verifyWebhook\` does all of this.`,
  },
} as const;

const SUMMARIES: Record<EventType, string> = {
  'deployment.created': 'A deployment was created',
  'deployment.updated': "A deployment's status, url or links.operation changed",
  'operation.created': 'An operation was requested',
  'operation.updated': "An operation's status, progress, error or result changed",
};

/** `deployment.created` → `deploymentCreated`: the operationId stem of an event type's webhook. */
const camel = (type: EventType) => type.replace(/[._](\w)/g, (_, c: string) => c.toUpperCase());

/** "5 s", "30 min", "2 h": a retry delay for prose. */
function duration(seconds: number): string {
  if (seconds >= 3600 && seconds % 3600 === 0) return `${seconds / 3600} h`;
  if (seconds >= 60 && seconds % 60 === 0) return `${seconds / 60} min`;
  return `${seconds} s`;
}

function retryText(): string {
  const schedule = config().webhooks.retrySchedule;
  const failure = 'Any other answer (a redirect too), or none (refused connection, timeout): the attempt failed';
  if (schedule.length === 0) return `${failure}, and the delivery is not retried.`;
  const delays = schedule.map(duration);
  const waits = delays.length > 1 ? `${delays.slice(0, -1).join(', ')} and ${delays.at(-1)}` : delays[0];
  return `${failure}. The delivery is retried up to ${schedule.length} times (the operator's WEBHOOK_RETRY_SCHEDULE), waiting ${waits} after the successive failed attempts, with the same \`webhook-id\` and body and a fresh \`webhook-timestamp\` and signature. Every attempt is listed by \`GET /api/v1/webhooks/{webhook_id}/deliveries\`.`;
}

export function registerDeliveryHeaders(registry: OpenAPIRegistry): void {
  for (const [name, parameter] of Object.entries(DELIVERY_HEADERS)) {
    registry.registerComponent('parameters', name, { ...parameter, schema: structuredClone(parameter.schema) as Record<string, unknown> });
  }
}

function webhookOf(type: EventType) {
  const kind = type.startsWith('deployment.') ? 'Deployment' : 'Operation';
  return {
    post: {
      operationId: `${camel(type)}Webhook`,
      summary: `${type}: ${SUMMARIES[type]}`,
      description: `Sent to every webhook subscribed to \`${type}\` (see the Webhooks tag). The body is the event exactly as \`GET /api/v1/events\` lists it, \`data.object\` being the ${kind.toLowerCase()} after the change. No API key: the service proves itself with \`webhook-signature\`. Deliveries are not ordered: order events by \`sequence\`.`,
      tags: ['Webhooks'],
      security: [],
      parameters: Object.keys(DELIVERY_HEADERS).map((name) => ref('parameters', name)),
      requestBody: {
        required: true,
        content: {
          'application/json': {
            schema: {
              allOf: [
                ref('schemas', 'Event'),
                {
                  type: 'object' as const,
                  properties: { type: { const: type }, data: { type: 'object' as const, properties: { object: ref('schemas', kind) } } },
                },
              ],
            },
            example: eventExampleOf(type),
          },
        },
      },
      responses: {
        '2XX': { description: 'Acknowledged: the delivery is done. The body of the answer is ignored.' },
        default: { description: retryText() },
      },
    },
  };
}

/** The document's `webhooks`: one entry per event type. */
export function webhooksSection(): Record<EventType, ReturnType<typeof webhookOf>> {
  return Object.fromEntries(EVENT_TYPES.map((type) => [type, webhookOf(type)])) as Record<EventType, ReturnType<typeof webhookOf>>;
}
