/** The example records of the document: one per schema that has one, and the list pages built from them. */
import * as z from 'zod/mini';
import { PAGE_SIZE_DEFAULT } from '../../contract/limits.js';
import { API_PREFIX, deploymentPath, environmentPath, operationPath } from '../../contract/paths.js';
import * as s from '../../contract/schemas.js';
import { EVENT_TYPES, SCOPES } from '../../contract/vocabulary.js';

const AT = '2026-11-22T06:40:00.000Z';
/** The example key (GET /key), also the author of the example's requests. */
const KEY_ID = 'key_1a2b3c4d5e6f7a8b9c0d';
const DEP_ID = '3f2b8c1e-6d4a-4e7b-9a51-0c8d2e7f4a10';
const OP_ID = 'op_8a1d2c3b-4e5f-4a6b-8c7d-9e0f1a2b3c4d';
const WH_ID = 'wh_5d0f1c2b3a4e4f6a8b9c0d1e2f3a4b5c';
const WEBHOOK = {
  id: WH_ID,
  url: 'https://hooks.example.com/deployments',
  events: [...EVENT_TYPES],
  description: 'Chat notifications',
  created_at: AT,
  links: { self: `${API_PREFIX}/webhooks/${WH_ID}` },
} satisfies s.Webhook;

/** The request id of the example error bodies. */
export const EXAMPLE_REQUEST_ID = 'req_5d0f1c2b3a4e4f6a8b9c0d1e2f3a4b5c';

/** When the example create succeeded: its first health check was made then (decision 48). */
const READY_AT = '2026-11-22T06:40:04.530Z';
const UNKNOWN_HEALTH = { status: 'unknown' as const, since: AT };

const DEPLOYMENT_EXAMPLE = {
  id: DEP_ID,
  name: 'airflow-3fa9c2',
  app_type: 'airflow',
  status: 'ready',
  url: `https://airflow.${DEP_ID}.apps.example.com`,
  health: { status: 'healthy', since: READY_AT },
  hibernation: { state: 'awake', until: null },
  environment_id: s.DEFAULT_ENVIRONMENT_ID,
  created_at: AT,
  config: {
    app_version: '3.1.3',
    size: 'small',
    env: { LOG_LEVEL: { value: 'info', secret: false }, DATABASE_PASSWORD: { secret: true } },
    hibernation: { schedules: [{ hibernate: '0 19 * * 1-5', wake: '0 7 * * 1-5' }], time_zone: 'Europe/Berlin' },
  },
  revision: 1,
  updated_at: AT,
  links: { self: deploymentPath(DEP_ID), operation: operationPath(OP_ID) },
} satisfies s.Deployment;

const OPERATION_EXAMPLE = {
  id: OP_ID,
  type: 'deployment.create',
  status: 'running',
  progress: { phase: 'provisioning_db', message: 'Provisioning the database.' },
  resource: { type: 'deployment', id: DEP_ID },
  requested_at: AT,
  started_at: '2026-11-22T06:40:01.000Z',
  links: { self: operationPath(OP_ID), resource: deploymentPath(DEP_ID) },
} satisfies s.Operation;

const { url: _url, ...PROVISIONING_DEPLOYMENT } = { ...DEPLOYMENT_EXAMPLE, status: 'provisioning' as const, health: UNKNOWN_HEALTH };
const { started_at: _startedAt, ...QUEUED_OPERATION } = {
  ...OPERATION_EXAMPLE,
  status: 'queued' as const,
  progress: { phase: 'queued' as const, message: 'Waiting to start.' },
};

/** The example key's request made the records; the workflow moved them (decision 46). */
const REQUEST_ACTOR: s.Actor = { type: 'api_key', id: KEY_ID };

/** An event of each type, from the life of the example deployment and its create operation. */
const EVENT_EXAMPLES: Record<s.EventType, s.Event> = {
  'deployment.created': {
    id: 'evt_a48223c4-25e6-44ec-8b70-a2045c74276b',
    type: 'deployment.created',
    sequence: 1,
    created_at: AT,
    actor: REQUEST_ACTOR,
    data: { object: PROVISIONING_DEPLOYMENT },
  },
  'operation.created': {
    id: 'evt_0b6c5e1d-3f7a-4c2b-9d8e-1a2b3c4d5e6f',
    type: 'operation.created',
    sequence: 2,
    created_at: AT,
    actor: REQUEST_ACTOR,
    data: { object: QUEUED_OPERATION },
  },
  'operation.updated': {
    id: 'evt_7e9f1a2b-4c3d-4e5f-8a6b-9c0d1e2f3a4b',
    type: 'operation.updated',
    sequence: 3,
    created_at: '2026-11-22T06:40:01.000Z',
    actor: { type: 'system' },
    data: { object: OPERATION_EXAMPLE, previous: { status: 'queued', progress: QUEUED_OPERATION.progress, started_at: null } },
  },
  'deployment.updated': {
    id: 'evt_c1d2e3f4-a5b6-4c7d-8e9f-0a1b2c3d4e5f',
    type: 'deployment.updated',
    sequence: 6,
    created_at: READY_AT,
    actor: { type: 'system' },
    data: { object: DEPLOYMENT_EXAMPLE, previous: { status: 'provisioning', url: null, health: UNKNOWN_HEALTH } },
  },
};

/** The example event of a type, as GET /events lists it and a webhook delivers it. */
export const eventExampleOf = (type: s.EventType): s.Event => EVENT_EXAMPLES[type];

const EXAMPLES = new Map<z.core.$ZodType, unknown>([
  [s.Deployment, DEPLOYMENT_EXAMPLE],
  [s.Operation, OPERATION_EXAMPLE],
  [s.Event, eventExampleOf('operation.updated')],
  [s.Webhook, WEBHOOK],
  [
    s.CreatedWebhook,
    { ...WEBHOOK, secret: 'whsec_FEn+2nVovp8dk+fGdGompUmL5zTGgsEUPUG7dKOLBn8=' } satisfies z.output<typeof s.CreatedWebhook>,
  ],
  [s.DeletedWebhook, { id: WH_ID, deleted: true } satisfies z.output<typeof s.DeletedWebhook>],
  [
    s.WebhookDelivery,
    {
      event_id: EVENT_EXAMPLES['operation.updated'].id,
      attempt: 1,
      attempted_at: '2026-11-22T06:40:00.120Z',
      status_code: 200,
      succeeded: true,
    } satisfies s.WebhookDelivery,
  ],
  [
    s.CreateWebhookBody,
    {
      url: 'https://hooks.example.com/deployments',
      events: ['deployment.updated'],
      description: 'Chat notifications',
    } satisfies s.CreateWebhookBody,
  ],
  [
    s.Environment,
    {
      id: s.DEFAULT_ENVIRONMENT_ID,
      name: 'Default',
      is_default: true,
      created_at: AT,
      links: { self: environmentPath(s.DEFAULT_ENVIRONMENT_ID) },
    } satisfies s.Environment,
  ],
  [
    s.ApiKeyInfo,
    {
      id: KEY_ID,
      name: 'ci',
      org_id: 'org-1234',
      scopes: [...SCOPES],
      expires_at: null,
      created_at: AT,
      hint: 'svc_sk_live_…abcd',
      last_used_at: '2026-11-22T06:39:58.000Z',
    } satisfies s.ApiKeyInfo,
  ],
  [
    s.Accepted,
    {
      deployment_id: DEP_ID,
      operation_id: OP_ID,
      links: { deployment: deploymentPath(DEP_ID), operation: operationPath(OP_ID) },
    } satisfies s.Accepted,
  ],
  [s.CreateDeploymentBody, { app_type: 'airflow', name: 'analytics' } satisfies s.CreateDeploymentBody],
  [
    s.AppUserAccepted,
    {
      deployment_id: DEP_ID,
      operation_id: OP_ID,
      links: { deployment: deploymentPath(DEP_ID), operation: operationPath(OP_ID) },
      initial_password: 'q7Rm2XkLp9VzT4bNc8WdY3hF',
    } satisfies z.output<typeof s.AppUserAccepted>,
  ],
  [s.CreateAppUserBody, { username: 'ada', email: 'ada@example.com', role: 'editor' } satisfies s.CreateAppUserBody],
  [s.EmptyBody, {}],
]);

/** The example of a schema, when it has one. */
export const exampleOf = (schema: z.core.$ZodType): unknown => EXAMPLES.get(schema);

/** The example of a route's `data`: the schema's own, or a one-item list page of one (its links on `path`). */
export function dataExampleOf(schema: z.core.$ZodType, path: string): unknown {
  if (EXAMPLES.has(schema)) return EXAMPLES.get(schema);
  if (schema instanceof z.ZodMiniObject && schema.shape.items instanceof z.ZodMiniArray && 'pagination' in schema.shape) {
    const item = dataExampleOf(schema.shape.items.def.element, path);
    if (item === undefined) return undefined;
    const at = (page: number) => `${API_PREFIX}${path}?page=${page}&per_page=${PAGE_SIZE_DEFAULT}`;
    return {
      items: [item],
      pagination: { page: 1, per_page: PAGE_SIZE_DEFAULT, total: 1, pages: 1 },
      links: { self: at(1), first: at(1), last: at(1), next: null, prev: null },
    };
  }
  return undefined;
}
