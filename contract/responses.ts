/**
 * What each route of the route table (routes.ts) answers on success: the schema of `data`,
 * and, for a route that may answer another success instead (`success.or`), that one's
 * schema and what it means. Only the OpenAPI document, the typed client and its types read
 * them; no function's handler does, so they live here rather than in the route table,
 * whose routes every function bundles and builds at import: a function's bundle holds no
 * response schema (decision 295).
 *
 * Keyed by route id, and typed by the route table: a JSON route without its entry, an entry
 * for a route that answers no JSON, or a missing or extra `or` does not compile.
 */
import type * as z from 'zod/mini';
import * as m from './monitoring-schemas.js';
import type { RouteId, routes } from './routes.js';
import * as s from './schemas.js';

/** The schemas of a success: `data`'s, and those of the other success a route may answer instead. */
export interface SuccessSchemas {
  readonly data: z.ZodMiniType;
  readonly or?: { readonly data: z.ZodMiniType; readonly description: string };
}

/** What a route's `success` asks of its entry: `or` (of the form Or) exactly when the route declares `success.or`. */
export type ResponseOf<S, Or = Required<SuccessSchemas>['or']> = S extends { readonly or: object }
  ? { readonly data: z.ZodMiniType; readonly or: Or }
  : { readonly data: z.ZodMiniType; readonly or?: never };

/** The routes that answer JSON in the `{"data": …}` envelope: every one without a `contentType` of its own. */
export type JsonRouteId = { [K in RouteId]: (typeof routes)[K]['success'] extends { readonly contentType: string } ? never : K }[RouteId];

/** The 200 of an update: the deployment when nothing changes, what would change on a dry run. */
const UPDATE_OR = {
  data: /* @__PURE__ */ s.dryRunOrDeployment(),
  description: 'Nothing to change: the deployment as it is. With dry_run=true: `{deployment, changes}`, nothing written.',
} as const;

/** Decision 50: the 200 of a hibernate or a wake when the deployment is already in the asked state. */
const HIBERNATION_OR = {
  data: s.Deployment,
  description: 'Already in the asked state: the deployment as it is (an `until` given is recorded), no operation.',
} as const;

export const responses = {
  listEnvironments: { data: /* @__PURE__ */ s.listOf(s.Environment) },
  getEnvironment: { data: s.Environment },
  getKey: { data: s.ApiKeyInfo },
  createDeployment: { data: s.Accepted },
  listDeployments: { data: /* @__PURE__ */ s.listOf(s.Deployment) },
  getDeployment: { data: s.Deployment },
  updateDeployment: { data: s.Accepted, or: UPDATE_OR },
  deleteDeployment: { data: s.Accepted },
  getDeploymentHealth: { data: m.HealthReport },
  getDeploymentMetrics: { data: m.Metrics },
  listRevisions: { data: /* @__PURE__ */ s.listOf(s.Revision) },
  getRevision: { data: s.Revision },
  rollbackDeployment: { data: s.Accepted, or: UPDATE_OR },
  hibernateDeployment: { data: s.Accepted, or: HIBERNATION_OR },
  wakeDeployment: { data: s.Accepted, or: HIBERNATION_OR },
  createDagSync: { data: s.Accepted },
  createAppUser: { data: s.AppUserAccepted },
  listOperations: { data: /* @__PURE__ */ s.listOf(s.Operation) },
  waitOperation: { data: s.Operation },
  listOperationLogs: { data: /* @__PURE__ */ s.listOf(s.OperationLogLine) },
  getOperation: { data: s.Operation },
  cancelOperation: { data: s.Operation },
  listEvents: { data: /* @__PURE__ */ s.listOf(s.Event) },
  createWebhook: { data: s.CreatedWebhook },
  listWebhooks: { data: /* @__PURE__ */ s.listOf(s.Webhook) },
  getWebhook: { data: s.Webhook },
  deleteWebhook: { data: s.DeletedWebhook },
  listWebhookDeliveries: { data: /* @__PURE__ */ s.listOf(s.WebhookDelivery) },
} as const satisfies { readonly [K in JsonRouteId]: ResponseOf<(typeof routes)[K]['success']> };

/** The success schemas of a route by id; undefined for a route that answers no JSON (the document, the docs page). */
export const responseOf = (id: RouteId): SuccessSchemas | undefined => (responses as Partial<Record<RouteId, SuccessSchemas>>)[id];
