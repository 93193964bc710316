import * as routes from '../../contract/routes.js';
import { findDeploymentRevision } from '../app/deployment-revisions.js';
import { revisionView } from '../core/revisions.js';
import { httpRoute } from '../middleware/http-route.js';

export const handler = httpRoute(routes.getRevision, async ({ caller, params }) => ({
  data: revisionView(await findDeploymentRevision(caller.orgId, params.deployment_id, params.revision)),
}));
