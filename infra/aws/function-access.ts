/**
 * What each function may do, declared once. The stack turns every entry into that
 * function's IAM policy (and decides from it which functions get STATE_MACHINE_ARN),
 * so a grant is never written anywhere else. test/infra checks that every handler in
 * the route table and every workflow step has an entry, and that the synthesized
 * policies hold exactly these actions.
 *
 * IAM has no `dynamodb:TransactWriteItems` action: a transaction is authorised per
 * item, Put → PutItem, Update → UpdateItem, Delete → DeleteItem, ConditionCheck →
 * ConditionCheckItem. An entry lists those item actions. When the code starts using
 * another action, index or Step Functions call, its entry here changes with it
 * (DynamoDB Local does not check IAM; test/helpers/grant-check.ts replays every request
 * each function sends in the tests against these entries, as IAM would judge it).
 *
 * Every item grant names the table partitions it reaches (IAM `dynamodb:LeadingKeys`,
 * the partition key of the item, or of the index a Query reads): the request path may
 * count and stamp a key item, but only key management (the keys CLI, the dashboard)
 * may create, revoke or list keys.
 */

import type { dashboardRoutes } from '../../contract/dashboard-routes.js';
import type { routes } from '../../contract/routes.js';
import type { SealPurpose } from '../../contract/sealing.js';
import {
  ADMISSION_ATTRIBUTES,
  AUTH_FAILURE_ATTRIBUTES,
  KEY_COUNT_ATTRIBUTES,
  USAGE_SETTLE_ATTRIBUTES,
  USER_RATE_ATTRIBUTES,
  WAIT_SLOT_ATTRIBUTES,
} from '../../contract/table/attributes.js';
import {
  apiKey,
  deployment,
  deploymentHealth,
  INDEX,
  type IndexName,
  operation,
  PARTITIONS,
  type Partition,
} from '../../contract/table/entities.js';
import type { PhysicalIndex } from '../../contract/table/table.js';

/** DynamoDB item actions on the table (granted on the table's ARN only). */
export type ItemAction = 'GetItem' | 'BatchGetItem' | 'PutItem' | 'UpdateItem' | 'DeleteItem' | 'ConditionCheckItem';
export type ReturnValue = 'NONE' | 'ALL_OLD' | 'UPDATED_OLD' | 'ALL_NEW' | 'UPDATED_NEW';

/**
 * Where a grant reaches: a partition of the table (by prefix), the reconciler's one
 * partition of operation.activeOperations, or the organizations' key lists
 * (apiKey.keysByOrg, key management only).
 */
export type Reach = Partition | 'activeOperations' | 'healthChecks' | 'hibernationDue' | 'orgKeyLists';

/** The partitions of those two indexes, as their declarations (entities.ts) build them. */
const INDEX_REACH = {
  activeOperations: operation.indexes.activeOperations.pk.pattern,
  healthChecks: deploymentHealth.indexes.healthChecks.pk.pattern,
  hibernationDue: deployment.indexes.hibernationDue.pk.pattern,
  orgKeyLists: apiKey.indexes.keysByOrg.pk.pattern,
} as const;

/** The `dynamodb:LeadingKeys` value that matches a reach: a prefix and `*`, or the index partitions' pattern. */
export const leadingKeyPattern = (r: Reach): string =>
  r in INDEX_REACH ? INDEX_REACH[r as keyof typeof INDEX_REACH] : `${PARTITIONS[r as Partition]}*`;

/**
 * Partitions no Query of a function may read, whatever its reach: an organization's
 * key list (apiKey.keysByOrg, `ORG#<org_id>#KEYS`) belongs to key management.
 */
export const QUERY_EXCLUDED = [INDEX_REACH.orgKeyLists];

/** The physical indexes (table.ts) a function's named indexes live in: what IAM grants. */
export const physicalIndexes = (names: readonly IndexName[]): PhysicalIndex[] => [...new Set(names.map((n) => INDEX[n].physical))].sort();

/** Item actions on some partitions, optionally naming only some attributes and asking only some ReturnValues. */
export interface ItemGrant {
  readonly actions: readonly ItemAction[];
  readonly reach: readonly Reach[];
  /** The only attributes a request may name, in its key, item, updates and conditions (`dynamodb:Attributes`). */
  readonly attributes?: readonly string[];
  /** The ReturnValues a request may ask for (absent is NONE) (`dynamodb:ReturnValues`). */
  readonly returnValues?: readonly ReturnValue[];
}

export type StatesAction = 'StartExecution' | 'StopExecution' | 'DescribeExecution';
/** Actions on the webhook delivery queue (granted on that queue's ARN only). */
export type QueueAction = 'SendMessage';
/**
 * What a function may do with the webhook key. Decrypting is bound to a purpose (the
 * encryption context the sealer binds, core/secret-sealer.ts): the deliverer opens webhooks' secrets,
 * the creating function only the answers it keeps for Idempotency-Key replays.
 */
export type KmsAction = 'Encrypt' | `Decrypt:${SealPurpose}`;
export const kmsActionName = (a: KmsAction): string => `kms:${a.split(':')[0]}`;
/** What a function asks the dashboard's user pool (granted on the pool's ARN only). */
export type UserPoolAction = 'AdminGetUser';

export interface FunctionAccess {
  readonly items: readonly ItemGrant[];
  /** Where the function runs Query: the base table and/or named indexes (entities.ts), and the partitions it reads there. */
  readonly query: { readonly table: boolean; readonly indexes: readonly IndexName[]; readonly reach: readonly Reach[] };
  /** Actions on the operation state machine (Start) and its executions (Stop, Describe). */
  readonly states: readonly StatesAction[];
  /** Messages it sends to the webhook delivery queue (adapters/sqs/delivery-queue.ts); gives it DELIVERY_QUEUE_URL. */
  readonly queue: readonly QueueAction[];
  /** What it does with the webhook secret key (adapters/kms/secret-sealer.ts); gives it WEBHOOK_KMS_KEY_ID. */
  readonly kms: readonly KmsAction[];
  /** It verifies or mints API keys: reads the signing secret (adapters/secrets-manager/key-signing-secret.ts); gives it API_KEY_SECRET_ARN. */
  readonly apiKeySecret?: true;
  /** It verifies the dashboard's tokens: gives it DASHBOARD_TOKEN_ISSUER and DASHBOARD_CLIENT_ID. */
  readonly userPool?: true;
  /** What it asks the user pool: key management re-checks the signed-in user (app/dashboard-users.ts). */
  readonly users: readonly UserPoolAction[];
}

/** Every module in functions/http/ that API Gateway invokes: the route tables' handlers plus the fallback. */
export type HttpHandlerName =
  | (typeof routes)[keyof typeof routes]['handler']
  | (typeof dashboardRoutes)[keyof typeof dashboardRoutes]['handler']
  | 'route-not-found';
/** Every module in functions/workflow/: the ASL's task functions plus the scheduled reconciler. */
export type WorkflowFunctionName =
  | 'start-phase'
  | 'check-phase'
  | 'complete-operation'
  | 'fail-operation'
  | 'reconcile-operations'
  | 'check-health'
  | 'run-hibernation-schedule';
/**
 * Every module in functions/events/: invoked by an event source mapping (the table's
 * stream, the delivery queue), not by API Gateway or the state machine.
 */
export type EventsFunctionName = 'dispatch-events' | 'deliver-webhooks';
export type FunctionName = HttpHandlerName | WorkflowFunctionName | EventsFunctionName;

/** The functions/events/ modules, in the order the stack creates them. */
export const EVENTS_FUNCTIONS: readonly EventsFunctionName[] = ['dispatch-events', 'deliver-webhooks'];

/** The step that runs on a schedule rather than from the state machine. */
export const SCHEDULED_FUNCTION: WorkflowFunctionName = 'reconcile-operations';
/** The health checker's round, scheduled every minute (decisions 48, 246). */
export const HEALTH_CHECK_FUNCTION: WorkflowFunctionName = 'check-health';
/** The hibernation scheduler's round, scheduled every minute (decisions 50, 260). */
export const HIBERNATION_SCHEDULE_FUNCTION: WorkflowFunctionName = 'run-hibernation-schedule';

const NONE: FunctionAccess = { items: [], query: { table: false, indexes: [], reach: [] }, states: [], queue: [], kms: [], users: [] };

/**
 * Every request with a key (functions/middleware/): one UpdateItem on the key's own item
 * that checks it and counts the request (key-admission.ts), naming only the counters,
 * `last_used_at` and the two dates it checks, never the key's organization, scopes or
 * hash; the usage log (PutItem, and its status and duration corrected); the failed-authentication
 * counter of the client address; and reads of the organization's items, an
 * Idempotency-Key's record included.
 */
const REQUEST: readonly ItemGrant[] = [
  { actions: ['UpdateItem'], reach: ['apiKey'], attributes: ADMISSION_ATTRIBUTES, returnValues: ['NONE', 'ALL_OLD'] },
  { actions: ['PutItem'], reach: ['usage'] },
  { actions: ['UpdateItem'], reach: ['usage'], attributes: USAGE_SETTLE_ATTRIBUTES, returnValues: ['NONE'] },
  { actions: ['UpdateItem'], reach: ['authFailures'], attributes: AUTH_FAILURE_ATTRIBUTES, returnValues: ['UPDATED_NEW'] },
  { actions: ['GetItem'], reach: ['org'] },
];
const KEYED: FunctionAccess = { ...NONE, items: REQUEST, apiKeySecret: true };

/**
 * The indexes the public lists read (adapters/dynamo/list-query.ts, status-counts.ts): a
 * dense list or its status index, of deployments, operations or events.
 */
const LIST_INDEXES: readonly IndexName[] = [
  'deployments',
  'deploymentsByStatus',
  'operations',
  'opsByType',
  'opsByResource',
  'opsByResourceType',
  'opsByStatus',
  'opsByTypeStatus',
  'opsByResourceStatus',
  'opsByResourceTypeStatus',
  'events',
  'eventsByType',
  'eventsByResource',
];

/**
 * A list endpoint: pages come from the list indexes of the organization, a status
 * filter's counts from the table (status-counts.ts).
 */
const LISTS: FunctionAccess = { ...KEYED, query: { table: true, indexes: LIST_INDEXES, reach: ['org'] } };

/**
 * An endpoint that writes the organization's records in a transaction (Put, Update),
 * may run a transition (Delete of a name claim), claims and releases Idempotency-Keys,
 * and reads the organization and the deployment it writes on in one BatchGetItem
 * (org-lock.ts withWriteState).
 */
const writer = (states: readonly StatesAction[]): FunctionAccess => ({
  ...KEYED,
  items: [...REQUEST, { actions: ['GetItem', 'BatchGetItem', 'PutItem', 'UpdateItem', 'DeleteItem'], reach: ['org'] }],
  states,
});

/**
 * A workflow step: reads the operation and its deployment and runs a transition (which
 * appends its events, PutItem), all inside the organization; the simulated driver's jobs
 * are items of the organization too.
 */
const STEP: FunctionAccess = { ...NONE, items: [{ actions: ['GetItem', 'PutItem', 'UpdateItem', 'DeleteItem'], reach: ['org'] }] };

/** The dashboard API: no key to read or count, the user's token verified against the pool's JWKS. */
const USER: FunctionAccess = { ...NONE, userPool: true };
/** Key management: the user pool must still hold the token's user, as it is (AdminGetUser). */
const KEY_MANAGER: FunctionAccess = { ...USER, users: ['AdminGetUser'] };
/**
 * A dashboard request that changes something is counted on the user's item of the hour
 * (user-admission.ts, decision 232): those attributes only. Reads are not counted.
 */
const USER_RATE: ItemGrant = {
  actions: ['UpdateItem'],
  reach: ['userRate'],
  attributes: USER_RATE_ATTRIBUTES,
  returnValues: ['UPDATED_NEW'],
};
/** Key management counts an organization's keys on its item (api-key-store.ts): that count, nothing else of it. */
const KEY_COUNT: ItemGrant = { actions: ['UpdateItem'], reach: ['org'], attributes: KEY_COUNT_ATTRIBUTES };
const DASHBOARD_LISTS: FunctionAccess = {
  ...USER,
  items: [{ actions: ['GetItem'], reach: ['org'] }],
  query: { table: true, indexes: LIST_INDEXES, reach: ['org'] },
};

/**
 * The dashboard's deployment changes: the public writers' own transactions and reads
 * (writer above) without an API key's items, the user re-checked in the pool as key
 * management does it.
 */
const dashboardWriter = (states: readonly StatesAction[]): FunctionAccess => ({
  ...KEY_MANAGER,
  items: [USER_RATE, { actions: ['GetItem', 'BatchGetItem', 'PutItem', 'UpdateItem', 'DeleteItem'], reach: ['org'] }],
  states,
});

export const FUNCTION_ACCESS: Readonly<Record<FunctionName, FunctionAccess>> = {
  'dashboard-get-me': USER,
  // The organization's keys (api-key-store.ts listKeys): key management only.
  'dashboard-list-keys': { ...USER, query: { table: false, indexes: ['keysByOrg'], reach: ['orgKeyLists'] } },
  // saveKey: one transaction, the organization's key count (Update, only its count) and the key (Put).
  'dashboard-create-key': {
    ...KEY_MANAGER,
    apiKeySecret: true,
    items: [USER_RATE, KEY_COUNT, { actions: ['PutItem'], reach: ['apiKey'] }],
  },
  // findKeyById, then revokeKey: one transaction, the key's conditional Update and the
  // count it gives back (or the key's Update alone), then the key read back.
  'dashboard-revoke-key': {
    ...KEY_MANAGER,
    items: [USER_RATE, KEY_COUNT, { actions: ['UpdateItem', 'GetItem'], reach: ['apiKey'] }],
    query: { table: false, indexes: ['keyById'], reach: ['apiKeyId'] },
  },
  // findKeyById, then one transaction: the new key's Put and the old key's conditional
  // Update, and the count when the old key held no place.
  'dashboard-rotate-key': {
    ...KEY_MANAGER,
    apiKeySecret: true,
    items: [USER_RATE, KEY_COUNT, { actions: ['PutItem', 'UpdateItem'], reach: ['apiKey'] }],
    query: { table: false, indexes: ['keyById'], reach: ['apiKeyId'] },
  },
  // The key by its id, then its usage items (the base table, usage-reads.ts).
  'dashboard-list-key-usage': { ...USER, query: { table: true, indexes: ['keyById'], reach: ['apiKeyId', 'usage'] } },
  // The public lists' reads: the organization or deployment item, the list indexes, a status filter's counts.
  'dashboard-list-deployments': DASHBOARD_LISTS,
  'dashboard-list-operations': DASHBOARD_LISTS,
  'dashboard-list-events': DASHBOARD_LISTS,
  // The events' lists, and the organization's keys to name their actors (app/activity.ts).
  'dashboard-list-activity': {
    ...DASHBOARD_LISTS,
    query: { table: true, indexes: [...LIST_INDEXES, 'keysByOrg'], reach: ['org', 'orgKeyLists'] },
  },
  // An operation's reads, one function (decision 290): the operation, then (decision 45) its log lines,
  // one key range of the organization's partition.
  'dashboard-get-operation': {
    ...USER,
    items: [{ actions: ['GetItem'], reach: ['org'] }],
    query: { table: true, indexes: [], reach: ['org'] },
  },
  // A deployment's reads, one function (decision 290): the deployment; its revisions, a key range of the base
  // table; its health (decision 48), the deployment and its health item in one key range (health-store.ts);
  // its metrics (decision 49), the deployment (when it ran).
  'dashboard-get-deployment': {
    ...USER,
    items: [{ actions: ['GetItem'], reach: ['org'] }],
    query: { table: true, indexes: [], reach: ['org'] },
  },
  // As create-deployment, update-deployment, rollback-deployment, delete-deployment and cancel-operation;
  // create and update digest secret values with a key derived from the key-signing secret (decision 131).
  'dashboard-create-deployment': { ...dashboardWriter(['StartExecution']), kms: ['Encrypt'], apiKeySecret: true },
  'dashboard-update-deployment': { ...dashboardWriter(['StartExecution']), kms: ['Encrypt'], apiKeySecret: true },
  'dashboard-rollback-deployment': dashboardWriter(['StartExecution']),
  // As change-hibernation: one function for both routes (decision 305).
  'dashboard-change-hibernation': dashboardWriter(['StartExecution']),
  'dashboard-destroy-deployment': dashboardWriter(['StartExecution', 'StopExecution']),
  'dashboard-cancel-operation': dashboardWriter(['StopExecution']),
  'list-environments': KEYED,
  'get-environment': KEYED,
  'get-key': KEYED,
  'get-deployment': KEYED,
  'get-operation': KEYED,
  // Decision 45: the operation (GetItem), then its log lines, one key range of the base table.
  'list-operation-logs': { ...KEYED, query: { table: true, indexes: [], reach: ['org'] } },
  // Decision 36: reads the operation until it changes (a consistent GetItem every 500 ms),
  // holding one of the organization's wait slots meanwhile (wait-slots.ts: Put, Delete).
  // A wait that waits holds one of the organization's slots (wait-slots.ts): those items' attributes only.
  'wait-operation': {
    ...KEYED,
    items: [...REQUEST, { actions: ['PutItem', 'DeleteItem'], reach: ['org'], attributes: WAIT_SLOT_ATTRIBUTES }],
  },
  'list-deployments': LISTS,
  'list-operations': LISTS,
  'list-events': LISTS,
  // Webhooks: items of the organization, counted on it, listed (webhook.webhooks) and
  // written in transactions (create, delete); deliveries are items of the webhook.
  // A new webhook's signing secret is sealed with the webhook key (KMS Encrypt).
  'create-webhook': { ...writer([]), kms: ['Encrypt', 'Decrypt:replay'] },
  'list-webhooks': { ...KEYED, query: { table: false, indexes: ['webhooks'], reach: ['org'] } },
  'get-webhook': KEYED,
  'delete-webhook': writer([]),
  'list-webhook-deliveries': { ...KEYED, query: { table: true, indexes: [], reach: ['deliveries'] } },
  'create-deployment': { ...writer(['StartExecution']), kms: ['Encrypt'] },
  // A destroy stops the create still provisioning (decision 11), then starts its own execution.
  'delete-deployment': writer(['StartExecution', 'StopExecution']),
  // A configuration's new secret values are sealed (KMS Encrypt) and never opened here.
  'update-deployment': { ...writer(['StartExecution']), kms: ['Encrypt'] },
  // The revision restored is read (GetItem), its secrets already sealed.
  'rollback-deployment': writer(['StartExecution']),
  // Revision items of the deployment: a page is a key range of the base table.
  'list-revisions': { ...KEYED, query: { table: true, indexes: [], reach: ['org'] } },
  'get-revision': KEYED,
  // Decisions 48-49, one function for both routes: the health reads the deployment and its health item, one key
  // range of the organization's partition (health-store.ts); the metrics read the deployment (when it ran).
  'get-deployment-monitoring': { ...KEYED, query: { table: true, indexes: [], reach: ['org'] } },
  // Decision 50, one function for both routes: the operation and the hold written in one transaction.
  'change-hibernation': writer(['StartExecution']),
  'create-dag-sync': writer(['StartExecution']),
  // The user's password is sealed for its operation, and the answer kept for replays (decision 51).
  'create-app-user': { ...writer(['StartExecution']), kms: ['Encrypt', 'Decrypt:replay'] },
  'cancel-operation': writer(['StopExecution']),
  // Public, computed from the route table: no data access at all.
  'get-openapi': NONE,
  'get-docs': NONE,
  'route-not-found': NONE,
  // The simulated driver keeps its jobs in the table: start-phase creates one (PutItem),
  // check-phase reads it; a cancel (the two writers above, the reconciler, a start-phase whose
  // operation ended while it started the job: decision 331) marks it (UpdateItem).
  // The function that opens a deployment's env secrets to hand them to the platform driver.
  // And an operation's sealed input (an app user's password, decision 256).
  'start-phase': { ...STEP, kms: ['Decrypt:deployment-env', 'Decrypt:operation-input'] },
  // It opens them too, only to find them in the driver's log lines and replace them (decision 136).
  'check-phase': { ...STEP, kms: ['Decrypt:deployment-env', 'Decrypt:operation-input'] },
  'complete-operation': STEP,
  'fail-operation': STEP,
  // Finds unfinished operations (operation.activeOperations holds only those), asks Step Functions
  // what became of their executions, stops overdue ones, and ends them failed.
  'reconcile-operations': {
    ...STEP,
    query: { table: false, indexes: ['activeOperations'], reach: ['activeOperations'] },
    states: ['DescribeExecution', 'StopExecution'],
  },
  // Decisions 48, 246: walks the ready deployments (deploymentHealth.healthChecks), reads each one's key range
  // (the record and its health item), and writes the health item, or the record, the org and an event together.
  'check-health': {
    ...STEP,
    query: { table: true, indexes: ['healthChecks'], reach: ['org', 'healthChecks'] },
  },
  // Decisions 50, 260: finds the deployments due this minute (deployment.hibernationDue), reads each (GetItem),
  // ends a hold or starts a hibernate or a wake (the request's transaction, and StartExecution), and moves its next visit.
  'run-hibernation-schedule': {
    ...NONE,
    items: [{ actions: ['GetItem', 'BatchGetItem', 'PutItem', 'UpdateItem', 'DeleteItem'], reach: ['org'] }],
    query: { table: false, indexes: ['hibernationDue'], reach: ['hibernationDue'] },
    states: ['StartExecution'],
  },
  // Decision 38. The stream's event items → the organization's webhooks → one
  // message each on the delivery queue. Reading the stream is the event source's grant.
  'dispatch-events': { ...NONE, query: { table: false, indexes: ['webhooks'], reach: ['org'] }, queue: ['SendMessage'] },
  // One message → the webhook and the event (GetItem), its secret opened (KMS Decrypt),
  // the attempt recorded in one transaction (Update webhook, Put attempt), and the next
  // attempt queued on failure. Receiving and deleting messages is the event source's grant.
  'deliver-webhooks': {
    ...NONE,
    items: [
      { actions: ['GetItem', 'UpdateItem'], reach: ['org'] },
      { actions: ['PutItem'], reach: ['deliveries'] },
    ],
    queue: ['SendMessage'],
    kms: ['Decrypt:delivery'],
  },
};

/** Whether the function needs the table at all (and so TABLE_NAME). */
export const usesTable = (a: FunctionAccess): boolean => a.items.length > 0 || a.query.table || a.query.indexes.length > 0;

/** The item actions a function may take anywhere (each on the partitions its grants name). */
export const itemActionsOf = (a: FunctionAccess): ItemAction[] => [...new Set(a.items.flatMap((g) => g.actions))];
