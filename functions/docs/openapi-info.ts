/** The prose of the document: its title and description, and the tags that group the operations. */
import { DEPRECATIONS } from '../core/deprecations.js';
import { config } from '../lib/config.js';

export const TAGS = [
  {
    name: 'Deployments',
    description:
      'Hosted airflow and superset instances. Creating and destroying them is asynchronous: the answer is `202` with an operation to poll.',
  },
  {
    name: 'Operations',
    description:
      'Asynchronous work (create, destroy, DAG sync, user provisioning). Wait on `GET /api/v1/operations/{operation_id}/wait` (it answers at each phase change) until `succeeded`, `failed` or `canceled`.',
  },
  {
    name: 'Webhooks',
    description:
      'URLs the service POSTs each event to (the records of `GET /api/v1/events`), signed as the Standard Webhooks specification says. What a delivery looks like, and how to check it, is under `webhooks`. The signing secret is in the `201` answer of `POST /api/v1/webhooks` and nowhere else.',
  },
  { name: 'Organization', description: 'The calling organization and API key.' },
  { name: 'Meta', description: 'This description and its interactive documentation. No key needed.' },
];

function description(): string {
  const l = config().limits;
  return [
    'Programmatic access to deploy, manage and monitor hosted airflow and superset deployments.',
    '',
    '**Authentication.** Send your API key in the `X-API-Key` header (keys look like `svc_sk_live_…` and are created in the dashboard under Organization > API Keys). Each operation states the scope it needs; a key has every scope unless restricted. Bearer tokens are not accepted.',
    '',
    '**Envelope.** Success bodies are `{"data": …}`; errors are `{"error": {"code", "message", "request_id", "details"?, "operation_id"?}}`. Every response carries `X-Request-Id` (send your own, up to 128 characters of `A-Za-z0-9._:-`, to have it echoed).',
    '',
    `**Limits.** ${l.perHour} requests per key per clock hour, ${l.perMinute} per key per clock minute, ${l.createsPerHour} deployment creations per organization per hour. Responses to an accepted key carry \`X-RateLimit-Limit\`, \`X-RateLimit-Remaining\` and \`X-RateLimit-Reset\` (the hourly window; Unix seconds). Over a limit: \`429 RATE_LIMIT_EXCEEDED\` with \`Retry-After\` seconds.`,
    '',
    '**Asynchronous work.** `202` answers carry the operation id, `Location: /api/v1/operations/<id>` and `Retry-After: 2`. Wait on `GET /api/v1/operations/{operation_id}/wait`, passing the phase it last returned: each call answers at the next phase change (or after 20 s), until the operation is `succeeded`, `failed` or `canceled`. A client that cannot hold a request open polls the operation every 2-5 seconds (at most once per second) instead. Back off exponentially after errors; set no time limit of your own unless your caller needs one (phases can take hours on a real platform).',
    '',
    '**Webhooks.** Instead of polling, register a URL with `POST /api/v1/webhooks`: every event of the chosen types is POSTed to it, with `webhook-id`, `webhook-timestamp` and `webhook-signature` headers (Standard Webhooks). Verify the signature with the secret from the `201` answer, answer `2xx` quickly, and skip an event id you have already handled: failed deliveries are retried.',
    '',
    '**Idempotency.** POST endpoints accept an `Idempotency-Key` header (1-255 characters): repeating it within 24 hours replays the first response with `Idempotent-Replayed: true`.',
    '',
    `**Deprecations.** A request that uses a deprecated feature is answered as before, with \`Deprecation: @<Unix seconds>\` (RFC 9745), \`Sunset: <HTTP-date>\` (RFC 8594) and \`Link: <…>; rel="deprecation"\` on every answer, errors included. Deprecated now: ${DEPRECATIONS.map((d) => `${d.feature}, since ${d.since}, sunset ${d.sunset}. ${d.instead}`).join(' ')}`,
    '',
    '**The guide.** Everything above and every rule behind it (statuses and their transitions, phases, lists and filters, cancel, every error code) is explained in prose in `docs/api.md`, in the repository that serves this document.',
  ].join('\n');
}

/** The document's `info` (its limits read from the configuration). */
export function apiInfo() {
  return { title: 'Deployment Management API', version: '1.0.0', description: description() };
}
