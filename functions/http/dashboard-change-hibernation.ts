import * as dashboard from '../../contract/dashboard-routes.js';
import { confirmUserInPool } from '../app/dashboard-users.js';
import { requestHibernation } from '../app/hibernation.js';
import { userActor } from '../core/events.js';
import type { HibernationKind } from '../core/hibernation.js';
import { dashboardRoute } from '../middleware/dashboard-route.js';
import type { LambdaHandler } from '../middleware/http-route.js';
import { accepted } from '../middleware/responses.js';

const change = (route: typeof dashboard.hibernateDeployment | typeof dashboard.wakeDeployment, kind: HibernationKind) =>
  dashboardRoute(route, async ({ user, params, body, now }) => {
    await confirmUserInPool(user);
    // The change is the signed-in user's (decision 46); answers and errors are the public route's.
    const answer = await requestHibernation({
      orgId: user.orgId,
      deploymentId: params.deployment_id,
      kind,
      ...(body.until === undefined ? {} : { until: body.until }),
      now,
      actor: userActor(user.sub),
    });
    return 'started' in answer ? accepted(answer.started) : { data: answer.unchanged };
  });

const hibernate = change(dashboard.hibernateDeployment, 'hibernate');
const wake = change(dashboard.wakeDeployment, 'wake');

/** One function serves both routes: a function each would cost the stack resources it is short of (decision 305). */
export const handler: LambdaHandler = (event, context) =>
  event.resource?.endsWith('/wake') || event.path?.endsWith('/wake') ? wake(event, context) : hibernate(event, context);
