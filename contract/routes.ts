/**
 * THE route table. The CDK stack creates one API Gateway method and one Lambda per
 * entry, the local server routes requests with it, and the OpenAPI document is
 * generated from it. Data only: no SDK and no handler imports.
 *
 * Each route is a constant of its own, gathered into `routes` at the end: a handler
 * imports this module as a namespace (`routes.getDeployment`), so its bundle holds its
 * own route and schemas, not the whole table's (README, Performance). esbuild drops what
 * a bundle does not use only when it knows building it has no side effects: hence the
 * `@__PURE__` marks on the calls below (contract/schemas.ts says the same of its own).
 * The schemas of what a route answers on success are in responses.ts, keyed by the
 * route's id: only the documents and the client read them (decision 295).
 */
import type * as z from 'zod/mini';
import type { ErrorCode } from './errors.js';
import * as m from './monitoring-schemas.js';
import * as s from './schemas.js';

export { API_PREFIX } from './paths.js';

export type Method = 'GET' | 'POST' | 'PATCH' | 'DELETE';

/**
 * Who may call a route: `public` needs no key, `key` any valid key, or a list of
 * scopes of which the key needs one (the first is the one named in a 403).
 */
export type Access = 'public' | 'key' | readonly [s.Scope, ...s.Scope[]];

export interface Route {
  readonly method: Method;
  /** Path below API_PREFIX, with `{name}` parameters as API Gateway writes them. */
  readonly path: string;
  /** Module name in functions/http/ (and the Lambda function's name). */
  readonly handler: string;
  readonly access: Access;
  readonly summary: string;
  readonly tag: 'Deployments' | 'Operations' | 'Webhooks' | 'Organization' | 'Meta';
  readonly params?: z.ZodMiniObject;
  readonly query?: z.ZodMiniType;
  /** JSON body schema; absent for routes that take no body. */
  readonly body?: z.ZodMiniType;
  /** The body may be left out (read as `{}`), as a route that takes none (decision 50's optional `{"until"}`). */
  readonly bodyOptional?: true;
  /** The media types the body may be sent as, when not only application/json (decision 8). */
  readonly bodyMediaTypes?: readonly [string, ...string[]];
  /**
   * The success response: its status, and its media type when it is not JSON in the
   * `{"data": …}` envelope. The schema of `data` is the route's entry in responses.ts.
   */
  readonly success: {
    readonly status: 200 | 201 | 202;
    readonly contentType?: string;
    /** Another success the route may answer instead (a PATCH that changes nothing, a dry run); its schema is in responses.ts too. */
    readonly or?: { readonly status: 200 };
    /** The answer carries `ETag: "<revision>"` (decision 42). */
    readonly etag?: true;
  };
  /** The success shows a secret once (a new webhook's): the copy kept for Idempotency-Key replays is sealed. */
  readonly secretInAnswer?: true;
  /** Body fields that are secrets (an app user's password): the Idempotency-Key fingerprint holds only their HMAC (decision 257). */
  readonly secretFields?: readonly string[];
  /** Error codes this route can answer besides the ones every keyed route can (401, 403, 429, 500). */
  readonly errors?: readonly ErrorCode[];
}

/**
 * Error code lists joined. A call marked free of side effects, not an array spread:
 * esbuild keeps a spread (it may run an iterator) and with it the whole route and its
 * schemas in every bundle, used or not.
 */
// @__NO_SIDE_EFFECTS__
function codes<const L extends readonly (readonly ErrorCode[])[]>(...lists: L): readonly L[number][number][] {
  return lists.flat();
}

/** What a route that takes a JSON body can answer for it: middleware/body-guard.ts, then validate-input.ts. */
const BODY_ERRORS = ['INVALID_REQUEST', 'UNSUPPORTED_MEDIA_TYPE', 'PAYLOAD_TOO_LARGE'] as const satisfies readonly ErrorCode[];

/**
 * What every POST can answer besides its own codes: it takes a JSON body, claims its
 * Idempotency-Key (middleware/idempotency.ts) and writes in a transaction that may find
 * the organization busy (adapters/dynamo/transact.ts). A route lists its own codes first:
 * the document keeps that order within a status.
 */
const IDEMPOTENT_POST_ERRORS = /* @__PURE__ */ codes(BODY_ERRORS, [
  'IDEMPOTENCY_KEY_REUSED',
  'IDEMPOTENCY_KEY_IN_USE',
  'ORGANIZATION_BUSY',
]);

export const listEnvironments = {
  method: 'GET',
  path: '/environments',
  handler: 'list-environments',
  access: ['org:read'],
  summary: 'List environments',
  tag: 'Organization',
  query: s.ListQuery,
  success: { status: 200 },
  errors: ['INVALID_REQUEST'],
} as const satisfies Route;

export const getEnvironment = {
  method: 'GET',
  path: '/environments/{environment_id}',
  handler: 'get-environment',
  access: ['org:read'],
  summary: 'Get an environment',
  tag: 'Organization',
  params: s.EnvironmentIdParams,
  success: { status: 200 },
  errors: ['ENVIRONMENT_NOT_FOUND'],
} as const satisfies Route;

export const getKey = {
  method: 'GET',
  path: '/key',
  handler: 'get-key',
  access: 'key',
  summary: 'Describe the calling API key',
  tag: 'Organization',
  success: { status: 200 },
} as const satisfies Route;

export const createDeployment = {
  method: 'POST',
  path: '/deployments',
  handler: 'create-deployment',
  access: ['deployments:write'],
  summary: 'Create a deployment',
  tag: 'Deployments',
  body: s.CreateDeploymentBody,
  success: { status: 202 },
  errors: /* @__PURE__ */ codes(['DEPLOYMENT_NAME_TAKEN'], IDEMPOTENT_POST_ERRORS),
} as const satisfies Route;

export const listDeployments = {
  method: 'GET',
  path: '/deployments',
  handler: 'list-deployments',
  access: ['deployments:read'],
  summary: 'List deployments',
  tag: 'Deployments',
  query: s.ListDeploymentsQuery,
  success: { status: 200 },
  errors: ['INVALID_REQUEST'],
} as const satisfies Route;

export const getDeployment = {
  method: 'GET',
  path: '/deployments/{deployment_id}',
  handler: 'get-deployment',
  access: ['deployments:read'],
  summary: 'Get a deployment',
  tag: 'Deployments',
  params: s.DeploymentIdParams,
  success: { status: 200, etag: true },
  errors: ['DEPLOYMENT_NOT_FOUND'],
} as const satisfies Route;

export const deleteDeployment = {
  method: 'DELETE',
  path: '/deployments/{deployment_id}',
  handler: 'delete-deployment',
  access: ['deployments:write', 'deployments:delete'],
  summary: 'Destroy a deployment',
  tag: 'Deployments',
  params: s.DeploymentIdParams,
  success: { status: 202 },
  errors: ['DEPLOYMENT_NOT_FOUND', 'DEPLOYMENT_ALREADY_DESTROYED', 'OPERATION_IN_PROGRESS', 'ORGANIZATION_BUSY'],
} as const satisfies Route;

/** The error codes of a request that starts a configuration update (decisions 42-43), besides its own. */
const UPDATE_ERRORS = [
  'INVALID_REQUEST',
  'UNSUPPORTED_MEDIA_TYPE',
  'PAYLOAD_TOO_LARGE',
  'DEPLOYMENT_NOT_FOUND',
  'PRECONDITION_FAILED',
  'DEPLOYMENT_NOT_READY',
  'OPERATION_IN_PROGRESS',
  'DEPLOYMENT_HIBERNATED',
  'IDEMPOTENCY_KEY_REUSED',
  'IDEMPOTENCY_KEY_IN_USE',
  'ORGANIZATION_BUSY',
] as const;

/** The 200 of an update: the deployment when nothing changes, what would change on a dry run (responses.ts). */
const UPDATE_OR = { status: 200 } as const;

export const updateDeployment = {
  method: 'PATCH',
  path: '/deployments/{deployment_id}',
  handler: 'update-deployment',
  access: ['deployments:write'],
  summary: "Update a deployment's configuration (JSON merge patch; dry_run=true shows what would change)",
  tag: 'Deployments',
  params: s.DeploymentIdParams,
  query: s.DryRunQuery,
  body: s.PatchDeploymentBody,
  bodyMediaTypes: ['application/merge-patch+json', 'application/json'],
  success: { status: 202, or: UPDATE_OR, etag: true },
  errors: UPDATE_ERRORS,
} as const satisfies Route;

export const getDeploymentHealth = {
  method: 'GET',
  path: '/deployments/{deployment_id}/health',
  handler: 'get-deployment-monitoring',
  access: ['deployments:read'],
  summary: "Get a deployment's health and its components' (decision 48)",
  tag: 'Deployments',
  params: s.DeploymentIdParams,
  success: { status: 200 },
  errors: ['DEPLOYMENT_NOT_FOUND'],
} as const satisfies Route;

export const getDeploymentMetrics = {
  method: 'GET',
  path: '/deployments/{deployment_id}/metrics',
  handler: 'get-deployment-monitoring',
  access: ['deployments:read'],
  summary: "Get a deployment's metrics over a time range (decision 49)",
  tag: 'Deployments',
  params: s.DeploymentIdParams,
  query: m.MetricsQuery,
  success: { status: 200 },
  errors: ['INVALID_REQUEST', 'DEPLOYMENT_NOT_FOUND'],
} as const satisfies Route;

export const listRevisions = {
  method: 'GET',
  path: '/deployments/{deployment_id}/revisions',
  handler: 'list-revisions',
  access: ['deployments:read'],
  summary: "List a deployment's configuration revisions, newest first",
  tag: 'Deployments',
  params: s.DeploymentIdParams,
  query: s.ListQuery,
  success: { status: 200 },
  errors: ['INVALID_REQUEST', 'DEPLOYMENT_NOT_FOUND'],
} as const satisfies Route;

export const getRevision = {
  method: 'GET',
  path: '/deployments/{deployment_id}/revisions/{revision}',
  handler: 'get-revision',
  access: ['deployments:read'],
  summary: 'Get one configuration revision',
  tag: 'Deployments',
  params: s.RevisionParams,
  success: { status: 200 },
  errors: ['DEPLOYMENT_NOT_FOUND', 'REVISION_NOT_FOUND'],
} as const satisfies Route;

export const rollbackDeployment = {
  method: 'POST',
  path: '/deployments/{deployment_id}/rollback',
  handler: 'rollback-deployment',
  access: ['deployments:write'],
  summary: "Restore a revision's configuration (dry_run=true shows what would change)",
  tag: 'Deployments',
  params: s.DeploymentIdParams,
  query: s.DryRunQuery,
  body: s.RollbackBody,
  success: { status: 202, or: UPDATE_OR, etag: true },
  errors: /* @__PURE__ */ codes(UPDATE_ERRORS, ['REVISION_NOT_FOUND']),
} as const satisfies Route;

/** Decision 50: the 200 of a hibernate or a wake when the deployment is already in the asked state. */
const HIBERNATION_OR = { status: 200 } as const;

const HIBERNATION_ERRORS = /* @__PURE__ */ codes(
  ['DEPLOYMENT_NOT_FOUND', 'DEPLOYMENT_NOT_READY', 'OPERATION_IN_PROGRESS'],
  IDEMPOTENT_POST_ERRORS,
);

/** A hibernate or a wake: one function for both (decision 261). */
/* @__NO_SIDE_EFFECTS__ */
function hibernationRoute<P extends string>(path: P, summary: string) {
  return {
    method: 'POST',
    path,
    handler: 'change-hibernation',
    access: ['deployments:write'],
    summary,
    tag: 'Deployments',
    params: s.DeploymentIdParams,
    body: s.HibernationBody,
    bodyOptional: true,
    success: { status: 202, or: HIBERNATION_OR },
    errors: HIBERNATION_ERRORS,
  } as const satisfies Route;
}

export const hibernateDeployment = /* @__PURE__ */ hibernationRoute(
  '/deployments/{deployment_id}/hibernate',
  'Hibernate a ready deployment: its application stops; data, configuration and URL are kept (decision 50)',
);

export const wakeDeployment = /* @__PURE__ */ hibernationRoute(
  '/deployments/{deployment_id}/wake',
  'Wake a hibernated deployment (decision 50)',
);

export const createDagSync = {
  method: 'POST',
  path: '/deployments/{deployment_id}/dag-syncs',
  handler: 'create-dag-sync',
  access: ['deployments:write'],
  summary: 'Synchronise the DAGs of an airflow deployment',
  tag: 'Deployments',
  params: s.DeploymentIdParams,
  body: s.EmptyBody,
  success: { status: 202 },
  errors: /* @__PURE__ */ codes(
    ['DEPLOYMENT_NOT_FOUND', 'DEPLOYMENT_NOT_READY', 'OPERATION_IN_PROGRESS', 'DEPLOYMENT_HIBERNATED'],
    IDEMPOTENT_POST_ERRORS,
  ),
} as const satisfies Route;

export const createAppUser = {
  method: 'POST',
  path: '/deployments/{deployment_id}/users',
  handler: 'create-app-user',
  access: ['deployments:write'],
  summary: 'Provision an application user (its password is shown once)',
  tag: 'Deployments',
  params: s.DeploymentIdParams,
  body: s.CreateAppUserBody,
  success: { status: 202 },
  secretInAnswer: true,
  secretFields: ['password'],
  errors: /* @__PURE__ */ codes(
    ['DEPLOYMENT_NOT_FOUND', 'DEPLOYMENT_NOT_READY', 'OPERATION_IN_PROGRESS', 'DEPLOYMENT_HIBERNATED'],
    IDEMPOTENT_POST_ERRORS,
  ),
} as const satisfies Route;

export const listOperations = {
  method: 'GET',
  path: '/operations',
  handler: 'list-operations',
  access: ['operations:read'],
  summary: 'List operations',
  tag: 'Operations',
  query: s.ListOperationsQuery,
  success: { status: 200 },
  errors: ['INVALID_REQUEST'],
} as const satisfies Route;

export const waitOperation = {
  method: 'GET',
  path: '/operations/{operation_id}/wait',
  handler: 'wait-operation',
  access: ['operations:read'],
  summary: 'Wait for an operation to end, or to leave a phase',
  tag: 'Operations',
  params: s.OperationIdParams,
  query: s.WaitOperationQuery,
  success: { status: 200 },
  errors: ['INVALID_REQUEST', 'OPERATION_NOT_FOUND'],
} as const satisfies Route;

export const listOperationLogs = {
  method: 'GET',
  path: '/operations/{operation_id}/logs',
  handler: 'list-operation-logs',
  access: ['operations:read'],
  summary: "List an operation's log lines, oldest first",
  tag: 'Operations',
  params: s.OperationIdParams,
  query: s.ListQuery,
  success: { status: 200 },
  errors: ['INVALID_REQUEST', 'OPERATION_NOT_FOUND'],
} as const satisfies Route;

export const getOperation = {
  method: 'GET',
  path: '/operations/{operation_id}',
  handler: 'get-operation',
  access: ['operations:read'],
  summary: 'Get an operation',
  tag: 'Operations',
  params: s.OperationIdParams,
  success: { status: 200 },
  errors: ['OPERATION_NOT_FOUND'],
} as const satisfies Route;

export const cancelOperation = {
  method: 'POST',
  path: '/operations/{operation_id}/cancel',
  handler: 'cancel-operation',
  access: ['deployments:write'],
  summary: 'Cancel an operation',
  tag: 'Operations',
  params: s.OperationIdParams,
  body: s.EmptyBody,
  success: { status: 200 },
  errors: /* @__PURE__ */ codes(['OPERATION_NOT_FOUND', 'OPERATION_NOT_CANCELABLE'], IDEMPOTENT_POST_ERRORS),
} as const satisfies Route;

export const listEvents = {
  method: 'GET',
  path: '/events',
  handler: 'list-events',
  access: ['operations:read'],
  summary: 'List events (every change to deployments and operations)',
  tag: 'Operations',
  query: s.ListEventsQuery,
  success: { status: 200 },
  errors: ['INVALID_REQUEST'],
} as const satisfies Route;

export const createWebhook = {
  method: 'POST',
  path: '/webhooks',
  handler: 'create-webhook',
  access: ['deployments:write'],
  summary: 'Create a webhook (its signing secret is shown once)',
  tag: 'Webhooks',
  body: s.CreateWebhookBody,
  success: { status: 201 },
  secretInAnswer: true,
  errors: /* @__PURE__ */ codes(['WEBHOOK_LIMIT_REACHED'], IDEMPOTENT_POST_ERRORS),
} as const satisfies Route;

export const listWebhooks = {
  method: 'GET',
  path: '/webhooks',
  handler: 'list-webhooks',
  access: ['deployments:read'],
  summary: 'List webhooks',
  tag: 'Webhooks',
  query: s.ListQuery,
  success: { status: 200 },
  errors: ['INVALID_REQUEST'],
} as const satisfies Route;

export const getWebhook = {
  method: 'GET',
  path: '/webhooks/{webhook_id}',
  handler: 'get-webhook',
  access: ['deployments:read'],
  summary: 'Get a webhook',
  tag: 'Webhooks',
  params: s.WebhookIdParams,
  success: { status: 200 },
  errors: ['WEBHOOK_NOT_FOUND'],
} as const satisfies Route;

export const deleteWebhook = {
  method: 'DELETE',
  path: '/webhooks/{webhook_id}',
  handler: 'delete-webhook',
  access: ['deployments:write'],
  summary: 'Delete a webhook',
  tag: 'Webhooks',
  params: s.WebhookIdParams,
  success: { status: 200 },
  errors: ['WEBHOOK_NOT_FOUND', 'ORGANIZATION_BUSY'],
} as const satisfies Route;

export const listWebhookDeliveries = {
  method: 'GET',
  path: '/webhooks/{webhook_id}/deliveries',
  handler: 'list-webhook-deliveries',
  access: ['deployments:read'],
  summary: "List a webhook's delivery attempts, newest first",
  tag: 'Webhooks',
  params: s.WebhookIdParams,
  query: s.ListQuery,
  success: { status: 200 },
  errors: ['INVALID_REQUEST', 'WEBHOOK_NOT_FOUND'],
} as const satisfies Route;

export const getOpenApi = {
  method: 'GET',
  path: '/openapi.json',
  handler: 'get-openapi',
  access: 'public',
  summary: 'This API description (OpenAPI 3.1)',
  tag: 'Meta',
  success: { status: 200, contentType: 'application/json' },
} as const satisfies Route;

export const getDocs = {
  method: 'GET',
  path: '/docs',
  handler: 'get-docs',
  access: 'public',
  summary: 'Interactive API documentation',
  tag: 'Meta',
  success: { status: 200, contentType: 'text/html' },
} as const satisfies Route;

export const getDocsAsset = {
  method: 'GET',
  path: '/docs/{asset}',
  handler: 'get-docs',
  access: 'public',
  summary: 'Static assets of the documentation page',
  tag: 'Meta',
  params: s.DocsAssetParams,
  success: { status: 200, contentType: 'text/css' },
  errors: ['NOT_FOUND'],
} as const satisfies Route;

/** Every route by id. */
export const routes = {
  listEnvironments,
  getEnvironment,
  getKey,
  createDeployment,
  listDeployments,
  getDeployment,
  updateDeployment,
  deleteDeployment,
  getDeploymentHealth,
  getDeploymentMetrics,
  listRevisions,
  getRevision,
  rollbackDeployment,
  hibernateDeployment,
  wakeDeployment,
  createDagSync,
  createAppUser,
  listOperations,
  waitOperation,
  listOperationLogs,
  getOperation,
  cancelOperation,
  listEvents,
  createWebhook,
  listWebhooks,
  getWebhook,
  deleteWebhook,
  listWebhookDeliveries,
  getOpenApi,
  getDocs,
  getDocsAsset,
};

export type RouteId = keyof typeof routes;
// Marked pure, as the schemas are (contract/schemas.ts): a handler's bundle, which uses only its own route, drops them.
export const routeList: readonly Route[] = /* @__PURE__ */ Object.values(routes);

/** The handler modules, one Lambda function each. */
export const handlerNames: readonly string[] = /* @__PURE__ */ (() => [...new Set(routeList.map((r) => r.handler))])();
