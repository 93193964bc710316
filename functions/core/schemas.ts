/**
 * The zod schemas of everything that crosses the API: request inputs are validated
 * with them, response records are typed by them, and the OpenAPI document is
 * generated from them. Each shape is declared here once.
 */
import * as z from 'zod';

import { SCOPES } from './scopes.js';

export { SCOPES };
export const Scope = z.enum(SCOPES);
export type Scope = z.infer<typeof Scope>;

export const APP_TYPES = ['airflow', 'superset'] as const;
export const AppType = z.enum(APP_TYPES);
export type AppType = z.infer<typeof AppType>;

export const DEPLOYMENT_STATUSES = ['provisioning', 'ready', 'destroying', 'failed', 'destroyed'] as const;
export const DeploymentStatus = z.enum(DEPLOYMENT_STATUSES);
export type DeploymentStatus = z.infer<typeof DeploymentStatus>;

export const OPERATION_STATUSES = ['queued', 'running', 'succeeded', 'failed', 'canceled'] as const;
/** Spec 3.2: these never change afterwards. */
export const TERMINAL_OPERATION_STATUSES = [
  'succeeded',
  'failed',
  'canceled',
] as const satisfies readonly (typeof OPERATION_STATUSES)[number][];
export const OperationStatus = z.enum(OPERATION_STATUSES);
export type OperationStatus = z.infer<typeof OperationStatus>;

export const OPERATION_TYPES = ['deployment.create', 'deployment.destroy', 'dag_sync.trigger', 'app_user.provision'] as const;
export const OperationType = z.enum(OPERATION_TYPES);
export type OperationType = z.infer<typeof OperationType>;

/** Decision 17's phases, of every operation type. */
export const PHASE_NAMES = [
  'queued',
  'provisioning_db',
  'provisioning_infrastructure',
  'ready',
  'destroying_infrastructure',
  'destroying_db',
  'destroyed',
  'syncing_dags',
  'synced',
  'provisioning_user',
  'provisioned',
] as const;
export const Phase = z.enum(PHASE_NAMES);
export type Phase = z.infer<typeof Phase>;

/** Decision 37: the changes a client can see, one event each. */
export const EVENT_TYPES = ['deployment.created', 'deployment.updated', 'operation.created', 'operation.updated'] as const;
export const EventType = z.enum(EVENT_TYPES);
export type EventType = z.infer<typeof EventType>;

export const USER_ROLES = ['admin', 'editor', 'viewer'] as const;

export const DEFAULT_ENVIRONMENT_ID = 'env_default';

const Timestamp = z.string().describe('ISO 8601 UTC timestamp with milliseconds, e.g. 2026-11-22T06:40:00.000Z');

// ---- requests ----------------------------------------------------------------

export const DeploymentName = z
  .string()
  .regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/, 'must be 1-64 letters, digits, "-", "_" or ".", starting with a letter or digit');

export const CreateDeploymentBody = z.strictObject({
  app_type: AppType,
  name: DeploymentName.optional(),
  environment_id: z.string().optional().describe('An id from GET /environments; default env_default.'),
});
export type CreateDeploymentBody = z.infer<typeof CreateDeploymentBody>;

export const CreateAppUserBody = z.strictObject({
  username: z
    .string()
    .regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/, 'must be 1-64 letters, digits, "-", "_" or ".", starting with a letter or digit'),
  email: z.email(),
  role: z.enum(USER_ROLES),
});
export type CreateAppUserBody = z.infer<typeof CreateAppUserBody>;

/** Endpoints that take no body accept none, or an empty object. */
export const EmptyBody = z.strictObject({});

/** A query integer: digits only (no sign, no decimals), then range-checked. */
export const queryInt = (min: number, max: number, fallback: number) =>
  z
    .string()
    .regex(/^\d{1,9}$/, 'must be an integer')
    .transform(Number)
    .pipe(z.number().int().min(min).max(max))
    .optional()
    .transform((v) => v ?? fallback);

export const PAGE_SIZE_DEFAULT = 50;
export const PAGE_SIZE_MAX = 100;

const Paging = {
  page: queryInt(1, 999_999_999, 1),
  per_page: queryInt(1, PAGE_SIZE_MAX, PAGE_SIZE_DEFAULT),
};

export const ListQuery = z.object(Paging);
export const ListDeploymentsQuery = z.object({ ...Paging, status: DeploymentStatus.optional() });
export const ListOperationsQuery = z.object({
  ...Paging,
  status: OperationStatus.optional(),
  type: OperationType.optional(),
  resource_id: z.string().min(1).max(200).optional(),
});
export const ListEventsQuery = z.object({
  ...Paging,
  type: EventType.optional(),
  resource_id: z.string().min(1).max(200).optional().describe('A deployment or operation id (`dep_<uuid>` is read as `<uuid>`).'),
});
export type ListDeploymentsQuery = z.infer<typeof ListDeploymentsQuery>;
export type ListOperationsQuery = z.infer<typeof ListOperationsQuery>;

/** Decision 36: how long to wait (seconds), and the phase whose end is awaited. */
export const WaitOperationQuery = z.object({
  timeout: queryInt(1, 20, 20).describe('Seconds to wait at most (1-20, default 20).'),
  phase: Phase.optional().describe('Answer as soon as the operation is no longer in this phase.'),
});

/** Decision 38: where and what to deliver. The URL's host is checked again at delivery. */
export const CreateWebhookBody = z.strictObject({
  url: z.string().min(1).max(2048).describe('An absolute https URL, without user or password, of at most 2048 characters.'),
  events: z.array(EventType).min(1).optional().describe('The event types to deliver (default: all four).'),
  description: z.string().max(255).optional(),
});
export type CreateWebhookBody = z.infer<typeof CreateWebhookBody>;
export const WebhookIdParams = z.object({ webhook_id: z.string() });

export const DeploymentIdParams = z.object({ deployment_id: z.string() });
export const OperationIdParams = z.object({ operation_id: z.string() });

// ---- responses ---------------------------------------------------------------

export const Pagination = z.object({
  page: z.number().int(),
  per_page: z.number().int(),
  total: z.number().int(),
  pages: z.number().int(),
});
export type Pagination = z.infer<typeof Pagination>;

export const ListLinks = z.object({
  self: z.string(),
  first: z.string(),
  last: z.string(),
  next: z.string().nullable(),
  prev: z.string().nullable(),
});
export type ListLinks = z.infer<typeof ListLinks>;

export const Deployment = z.object({
  id: z.uuid(),
  name: z.string(),
  app_type: AppType,
  status: DeploymentStatus,
  url: z.string().optional().describe('Present only while status is ready.'),
  environment_id: z.string(),
  created_at: Timestamp,
  links: z.object({ self: z.string(), operation: z.string().nullable() }),
});
export type Deployment = z.infer<typeof Deployment>;

export const Operation = z.object({
  id: z.string().regex(/^op_[0-9a-f-]{36}$/),
  type: OperationType,
  status: OperationStatus,
  progress: z.object({ phase: z.string(), message: z.string() }),
  resource: z.object({ type: z.literal('deployment'), id: z.uuid() }),
  requested_at: Timestamp,
  started_at: Timestamp.optional(),
  ended_at: Timestamp.optional(),
  error: z.object({ code: z.string(), message: z.string() }).optional(),
  result: z.record(z.string(), z.unknown()).optional(),
  links: z.object({ self: z.string(), resource: z.string() }),
});
export type Operation = z.infer<typeof Operation>;

export const Environment = z.object({
  id: z.string(),
  name: z.string(),
  is_default: z.boolean(),
  created_at: Timestamp,
  links: z.object({ self: z.string() }),
});
export type Environment = z.infer<typeof Environment>;

export const ApiKeyInfo = z.object({
  id: z.string(),
  name: z.string(),
  org_id: z.string(),
  scopes: z.array(Scope),
  expires_at: Timestamp.nullable(),
  created_at: Timestamp,
  hint: z.string(),
  last_used_at: Timestamp.nullable().describe('When the key was used before this request; null for its first.'),
});
export type ApiKeyInfo = z.infer<typeof ApiKeyInfo>;

export const Event = z.object({
  id: z.string().regex(/^evt_[0-9a-f-]{36}$/),
  type: EventType,
  sequence: z.number().int().describe("The organization's event counter: 1, 2, 3, … with no gaps, in the order the changes happened."),
  created_at: Timestamp,
  data: z.object({
    object: z.union([Deployment, Operation]).describe('The record after the change, as its GET returns it.'),
    previous: z
      .record(z.string(), z.unknown())
      .optional()
      .describe('For each top-level field that changed, its earlier value (null when it was absent). Absent on *.created.'),
  }),
});
export type Event = z.infer<typeof Event>;

export const Webhook = z.object({
  id: z.string().regex(/^wh_[0-9a-f]{32}$/),
  url: z.string(),
  events: z.array(EventType),
  description: z.string().nullable(),
  created_at: Timestamp,
  links: z.object({ self: z.string() }),
});
export type Webhook = z.infer<typeof Webhook>;

export const CreatedWebhook = Webhook.extend({
  secret: z
    .string()
    .regex(/^whsec_[A-Za-z0-9+/]{43}=$/)
    .describe('The signing secret: shown here once, never again.'),
});

export const DeletedWebhook = z.object({ id: z.string(), deleted: z.literal(true) });

export const WebhookDelivery = z.object({
  event_id: z.string(),
  attempt: z.number().int(),
  attempted_at: Timestamp,
  status_code: z.number().int().nullable().describe('null when there was no answer (refused, timed out, not allowed).'),
  succeeded: z.boolean(),
});
export type WebhookDelivery = z.infer<typeof WebhookDelivery>;

export const Accepted = z.object({
  deployment_id: z.uuid(),
  operation_id: z.string(),
  links: z.object({ deployment: z.string(), operation: z.string() }),
});
export type Accepted = z.infer<typeof Accepted>;

export const listOf = <T extends z.ZodType>(item: T) => z.object({ items: z.array(item), pagination: Pagination, links: ListLinks });

export const ErrorBody = z.object({
  error: z.object({
    code: z.string(),
    message: z.string(),
    request_id: z.string(),
    details: z.array(z.object({ field: z.string(), issue: z.string() })).optional(),
    operation_id: z.string().optional(),
  }),
});
