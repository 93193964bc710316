/**
 * What each route of the dashboard's API (dashboard-routes.ts) answers on success: the
 * schema of `data`, and of the other success an update may answer instead (`success.or`).
 * Only the web app's types read them (dashboard/src/api.ts), never a function's handler:
 * kept out of the route table, which every dashboard function bundles and builds at
 * import (decision 295). Keyed by route id and typed by the table, as responses.ts is.
 */
import * as z from 'zod/mini';
import type { DashboardRouteId, dashboardRoutes } from './dashboard-routes.js';
import * as d from './dashboard-schemas.js';
import * as m from './monitoring-schemas.js';
import type { ResponseOf } from './responses.js';
import * as s from './schemas.js';

// @__NO_SIDE_EFFECTS__
const listPage = <T extends z.ZodMiniType>(item: T) => z.object({ items: z.array(item), pagination: s.Pagination });

/** The 200 of an update: the deployment when nothing changes, what would change on a dry run. */
const UPDATE_OR = { data: /* @__PURE__ */ s.dryRunOrDeployment() } as const;

export const dashboardResponses = {
  getMe: { data: d.Me },
  listKeys: { data: /* @__PURE__ */ z.object({ items: /* @__PURE__ */ z.array(d.KeySummary) }) },
  createKey: { data: d.CreatedKey },
  revokeKey: { data: d.KeySummary },
  rotateKey: { data: d.RotatedKey },
  listKeyUsage: { data: d.UsagePage },
  listDeployments: { data: /* @__PURE__ */ listPage(s.Deployment) },
  getDeployment: { data: s.Deployment },
  getDeploymentHealth: { data: m.HealthReport },
  getDeploymentMetrics: { data: m.Metrics },
  listRevisions: { data: /* @__PURE__ */ listPage(s.Revision) },
  createDeployment: { data: s.Accepted },
  destroyDeployment: { data: s.Accepted },
  updateDeployment: { data: s.Accepted, or: UPDATE_OR },
  rollbackDeployment: { data: s.Accepted, or: UPDATE_OR },
  // Decision 50: already in the asked state, the deployment as it is.
  hibernateDeployment: { data: s.Accepted, or: { data: s.Deployment } },
  wakeDeployment: { data: s.Accepted, or: { data: s.Deployment } },
  listOperations: { data: /* @__PURE__ */ listPage(s.Operation) },
  getOperation: { data: s.Operation },
  listOperationLogs: { data: /* @__PURE__ */ listPage(s.OperationLogLine) },
  cancelOperation: { data: s.Operation },
  listEvents: { data: /* @__PURE__ */ listPage(s.Event) },
  listActivity: { data: d.ActivityPage },
} as const satisfies {
  readonly [K in DashboardRouteId]: ResponseOf<(typeof dashboardRoutes)[K]['success'], { readonly data: z.ZodMiniType }>;
};
