/**
 * The dashboard's own API, below /dashboard/api: its route table, read by the local
 * server, the CDK stack (one Lambda per handler, a Cognito authorizer in front) and the
 * web app's types. It takes only the signed-in user's bearer token, never an API key;
 * `role` is the least role a route needs (an admin may do what a viewer may).
 * Data only: no SDK and no handler imports.
 *
 * Each route is a constant of its own, marked free of side effects where it calls zod,
 * as routes.ts's are: a handler imports this module as a namespace and its bundle keeps
 * its own route and schemas, not the whole table's. What a route answers on success is
 * in dashboard-responses.ts, which only the web app's types read (decision 295).
 */
import type * as z from 'zod/mini';
import * as d from './dashboard-schemas.js';
import type { DashboardRole } from './dashboard-users.js';
import * as m from './monitoring-schemas.js';
import * as s from './schemas.js';

export const DASHBOARD_API_PREFIX = '/dashboard/api';

export interface DashboardRoute {
  readonly method: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  /** Path below DASHBOARD_API_PREFIX, with `{name}` parameters as API Gateway writes them. */
  readonly path: string;
  /** Module name in functions/http/ (and the Lambda function's name). */
  readonly handler: string;
  readonly role: DashboardRole;
  readonly summary: string;
  readonly params?: z.ZodMiniObject;
  readonly query?: z.ZodMiniType;
  readonly body?: z.ZodMiniType;
  /** The body may be left out (read as `{}`), as the public hibernate and wake take it. */
  readonly bodyOptional?: true;
  /**
   * `or`: the other success it may answer instead (an update that changes nothing, or a
   * dry run). The schemas of both are the route's entry in dashboard-responses.ts.
   */
  readonly success: {
    readonly status: 200 | 201 | 202;
    readonly or?: { readonly status: 200 };
  };
}

export const getMe = {
  method: 'GET',
  path: '/me',
  handler: 'dashboard-get-me',
  role: 'viewer',
  summary: 'The signed-in user: email, organization and role',
  success: { status: 200 },
} as const satisfies DashboardRoute;

export const listKeys = {
  method: 'GET',
  path: '/keys',
  handler: 'dashboard-list-keys',
  role: 'viewer',
  summary: "The organization's API keys, newest first (revoked ones included)",
  success: { status: 200 },
} as const satisfies DashboardRoute;

export const createKey = {
  method: 'POST',
  path: '/keys',
  handler: 'dashboard-create-key',
  role: 'admin',
  summary: 'Create an API key; the key is in this answer and nowhere else',
  body: d.CreateKeyBody,
  success: { status: 201 },
} as const satisfies DashboardRoute;

export const revokeKey = {
  method: 'DELETE',
  path: '/keys/{key_id}',
  handler: 'dashboard-revoke-key',
  role: 'admin',
  summary: 'Revoke an API key (permanent)',
  params: d.KeyIdParams,
  success: { status: 200 },
} as const satisfies DashboardRoute;

export const rotateKey = {
  method: 'POST',
  path: '/keys/{key_id}/rotate',
  handler: 'dashboard-rotate-key',
  role: 'admin',
  summary: 'Rotate an API key: a new key in its place (shown once), the old one working until the grace ends',
  params: d.KeyIdParams,
  body: d.RotateKeyBody,
  success: { status: 201 },
} as const satisfies DashboardRoute;

export const listKeyUsage = {
  method: 'GET',
  path: '/keys/{key_id}/usage',
  handler: 'dashboard-list-key-usage',
  role: 'viewer',
  summary: "A key's usage log, newest first, optionally of one status code",
  params: d.KeyIdParams,
  query: d.KeyUsageQuery,
  success: { status: 200 },
} as const satisfies DashboardRoute;

export const listDeployments = {
  method: 'GET',
  path: '/deployments',
  handler: 'dashboard-list-deployments',
  role: 'viewer',
  summary: "The organization's deployments, as GET /api/v1/deployments lists them",
  query: s.ListDeploymentsQuery,
  success: { status: 200 },
} as const satisfies DashboardRoute;

export const getDeployment = {
  method: 'GET',
  path: '/deployments/{deployment_id}',
  handler: 'dashboard-get-deployment',
  role: 'viewer',
  summary: 'One deployment, with its configuration (secret values never shown)',
  params: s.DeploymentIdParams,
  success: { status: 200 },
} as const satisfies DashboardRoute;

export const listRevisions = {
  method: 'GET',
  path: '/deployments/{deployment_id}/revisions',
  handler: 'dashboard-get-deployment',
  role: 'viewer',
  summary: "A deployment's configuration revisions, newest first",
  params: s.DeploymentIdParams,
  query: s.ListQuery,
  success: { status: 200 },
} as const satisfies DashboardRoute;

export const getDeploymentHealth = {
  method: 'GET',
  path: '/deployments/{deployment_id}/health',
  handler: 'dashboard-get-deployment',
  role: 'viewer',
  summary: "A deployment's health and its components', as GET /api/v1/deployments/{deployment_id}/health answers (decision 48)",
  params: s.DeploymentIdParams,
  success: { status: 200 },
} as const satisfies DashboardRoute;

export const getDeploymentMetrics = {
  method: 'GET',
  path: '/deployments/{deployment_id}/metrics',
  handler: 'dashboard-get-deployment',
  role: 'viewer',
  summary: "A deployment's metrics over a time range, as GET /api/v1/deployments/{deployment_id}/metrics answers (decision 49)",
  params: s.DeploymentIdParams,
  query: m.MetricsQuery,
  success: { status: 200 },
} as const satisfies DashboardRoute;

export const createDeployment = {
  method: 'POST',
  path: '/deployments',
  handler: 'dashboard-create-deployment',
  role: 'admin',
  summary: 'Create a deployment in the organization, as POST /api/v1/deployments does',
  body: s.CreateDeploymentBody,
  success: { status: 202 },
} as const satisfies DashboardRoute;

export const destroyDeployment = {
  method: 'DELETE',
  path: '/deployments/{deployment_id}',
  handler: 'dashboard-destroy-deployment',
  role: 'admin',
  summary: 'Destroy a deployment, as DELETE /api/v1/deployments/{deployment_id} does',
  params: s.DeploymentIdParams,
  success: { status: 202 },
} as const satisfies DashboardRoute;

export const updateDeployment = {
  method: 'PATCH',
  path: '/deployments/{deployment_id}',
  handler: 'dashboard-update-deployment',
  role: 'admin',
  summary: "Update a deployment's configuration (a merge patch of config; dry_run=true shows what would change), If-Match honoured",
  params: s.DeploymentIdParams,
  query: s.DryRunQuery,
  body: s.PatchDeploymentBody,
  success: { status: 202, or: { status: 200 } },
} as const satisfies DashboardRoute;

export const rollbackDeployment = {
  method: 'POST',
  path: '/deployments/{deployment_id}/rollback',
  handler: 'dashboard-rollback-deployment',
  role: 'admin',
  summary: "Restore a revision's configuration (dry_run=true shows what would change), If-Match honoured",
  params: s.DeploymentIdParams,
  query: s.DryRunQuery,
  body: s.RollbackBody,
  success: { status: 202, or: { status: 200 } },
} as const satisfies DashboardRoute;

/** A hibernate or a wake as the public route's (decision 50); one function serves both (decision 305). */
/* @__NO_SIDE_EFFECTS__ */
function hibernationRoute<P extends string>(path: P, summary: string) {
  return {
    method: 'POST',
    path,
    handler: 'dashboard-change-hibernation',
    role: 'admin',
    summary,
    params: s.DeploymentIdParams,
    body: s.HibernationBody,
    bodyOptional: true,
    success: { status: 202, or: { status: 200 } },
  } as const satisfies DashboardRoute;
}

export const hibernateDeployment = /* @__PURE__ */ hibernationRoute(
  '/deployments/{deployment_id}/hibernate',
  'Hibernate a ready deployment, as POST /api/v1/deployments/{deployment_id}/hibernate does',
);

export const wakeDeployment = /* @__PURE__ */ hibernationRoute(
  '/deployments/{deployment_id}/wake',
  'Wake a hibernated deployment, as POST /api/v1/deployments/{deployment_id}/wake does',
);

export const listOperations = {
  method: 'GET',
  path: '/operations',
  handler: 'dashboard-list-operations',
  role: 'viewer',
  summary: "The organization's operations, as GET /api/v1/operations lists them",
  query: s.ListOperationsQuery,
  success: { status: 200 },
} as const satisfies DashboardRoute;

export const getOperation = {
  method: 'GET',
  path: '/operations/{operation_id}',
  handler: 'dashboard-get-operation',
  role: 'viewer',
  summary: 'One operation',
  params: s.OperationIdParams,
  success: { status: 200 },
} as const satisfies DashboardRoute;

export const listOperationLogs = {
  method: 'GET',
  path: '/operations/{operation_id}/logs',
  handler: 'dashboard-get-operation',
  role: 'viewer',
  summary: "One operation's log lines, oldest first, as GET /api/v1/operations/{id}/logs lists them (decision 45)",
  params: s.OperationIdParams,
  query: s.ListQuery,
  success: { status: 200 },
} as const satisfies DashboardRoute;

export const cancelOperation = {
  method: 'POST',
  path: '/operations/{operation_id}/cancel',
  handler: 'dashboard-cancel-operation',
  role: 'admin',
  summary: 'Cancel a queued or running operation, as POST /api/v1/operations/{operation_id}/cancel does',
  params: s.OperationIdParams,
  success: { status: 200 },
} as const satisfies DashboardRoute;

export const listEvents = {
  method: 'GET',
  path: '/events',
  handler: 'dashboard-list-events',
  role: 'viewer',
  summary: "The organization's events (an operation's timeline with resource_id), as GET /api/v1/events lists them",
  query: s.ListEventsQuery,
  success: { status: 200 },
} as const satisfies DashboardRoute;

export const listActivity = {
  method: 'GET',
  path: '/activity',
  handler: 'dashboard-list-activity',
  role: 'viewer',
  summary: "The organization's audit trail: its events newest first, each actor named (a key's name), filterable by deployment",
  query: s.ListEventsQuery,
  success: { status: 200 },
} as const satisfies DashboardRoute;

/** Every dashboard route by id. */
export const dashboardRoutes = {
  getMe,
  listKeys,
  createKey,
  revokeKey,
  rotateKey,
  listKeyUsage,
  listDeployments,
  getDeployment,
  listRevisions,
  getDeploymentHealth,
  getDeploymentMetrics,
  createDeployment,
  destroyDeployment,
  updateDeployment,
  rollbackDeployment,
  hibernateDeployment,
  wakeDeployment,
  listOperations,
  getOperation,
  listOperationLogs,
  cancelOperation,
  listEvents,
  listActivity,
};

export type DashboardRouteId = keyof typeof dashboardRoutes;
export const dashboardRouteList: readonly DashboardRoute[] = /* @__PURE__ */ Object.values(dashboardRoutes);

/**
 * The dashboard API's handler modules, one Lambda function each. A few routes share one: a
 * deployment's reads (record, revisions, health, metrics) and an operation's (record, logs),
 * which keeps the prod stack inside its resource headroom (decision 290).
 */
export const dashboardHandlerNames: readonly string[] = /* @__PURE__ */ (() => [...new Set(dashboardRouteList.map((r) => r.handler))])();
