import * as routes from '../../contract/routes.js';
import { requestHibernation } from '../app/hibernation.js';
import type { HibernationKind } from '../core/hibernation.js';
import { httpBodyRoute } from '../middleware/body-route.js';
import type { LambdaHandler } from '../middleware/http-route.js';
import { accepted } from '../middleware/responses.js';

const change = (route: typeof routes.hibernateDeployment | typeof routes.wakeDeployment, kind: HibernationKind) =>
  httpBodyRoute(route, async ({ caller, params, body, now }) => {
    const answer = await requestHibernation({
      orgId: caller.orgId,
      deploymentId: params.deployment_id,
      kind,
      ...(body.until === undefined ? {} : { until: body.until }),
      now,
      actor: caller.actor,
    });
    return 'started' in answer ? accepted(answer.started) : { data: answer.unchanged };
  });

const hibernate = change(routes.hibernateDeployment, 'hibernate');
const wake = change(routes.wakeDeployment, 'wake');

/**
 * One function serves both (their routes name this handler), as the health and metrics
 * reads share one: a function each would take the stack past its resource headroom
 * (docs/deploy.md, Size and limits) for two small commands.
 */
export const handler: LambdaHandler = (event, context) =>
  event.resource?.endsWith('/wake') || event.path?.endsWith('/wake') ? wake(event, context) : hibernate(event, context);
