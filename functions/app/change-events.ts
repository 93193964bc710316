/**
 * The events a change makes, as clients see it: the API views of the record before and
 * after (decision 37). The writes in adapters/dynamo number and store them; the views,
 * which need the configuration (a deployment's url), are built here.
 */
import type { ChangeEvents } from '../adapters/dynamo/event-log.js';
import { deploymentView } from '../core/deployments.js';
import { changeEvent } from '../core/events.js';
import { operationView } from '../core/operations.js';
import { config } from '../lib/config.js';

export const changeEvents: ChangeEvents = {
  deployment: (before, after) =>
    changeEvent('deployment', before && deploymentView(before, config().appDomain), deploymentView(after, config().appDomain)),
  operation: (before, after) => changeEvent('operation', before && operationView(before), operationView(after)),
};
