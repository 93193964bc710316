/**
 * The events a change makes, as clients see it: the API views of the record before and
 * after (decision 37), and who made it (decision 46). The writes in adapters/dynamo number
 * and store them; the views, which need the configuration (a deployment's url), are built here.
 */
import type { ChangeEvents } from '../adapters/dynamo/event-log.js';
import { deploymentView } from '../core/deployments.js';
import { type Actor, changeEvent, SYSTEM_ACTOR } from '../core/events.js';
import { operationView } from '../core/operations.js';
import { config } from '../lib/config.js';

/** The events of the changes `actor` makes: every record a command writes, its own and others it moves, carries the same author. */
export const changeEventsBy = (actor: Actor): ChangeEvents => ({
  deployment: (before, after) =>
    changeEvent('deployment', actor, before && deploymentView(before, config().appDomain), deploymentView(after, config().appDomain)),
  operation: (before, after) => changeEvent('operation', actor, before && operationView(before), operationView(after)),
});

/** The workflow's changes: phases, ends, the reconciler's. */
export const systemChanges: ChangeEvents = changeEventsBy(SYSTEM_ACTOR);
