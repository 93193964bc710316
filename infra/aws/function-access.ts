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
 * (DynamoDB Local does not check IAM, so only AWS would notice).
 */
import type { SealPurpose } from '../../functions/adapters/crypto/secret-box.js';
import { INDEXES, type IndexName } from '../../functions/adapters/dynamo/table.js';
import type { dashboardRoutes } from '../../functions/dashboard-routes.js';
import type { routes } from '../../functions/routes.js';

/** DynamoDB item actions on the table (granted on the table's ARN only). */
export type ItemAction = 'GetItem' | 'PutItem' | 'UpdateItem' | 'DeleteItem' | 'ConditionCheckItem';
export type StatesAction = 'StartExecution' | 'StopExecution' | 'DescribeExecution';
/** Actions on the webhook delivery queue (granted on that queue's ARN only). */
export type QueueAction = 'SendMessage';
/** Actions on the webhook secret key (granted on that key's ARN only). */
/**
 * What a function may do with the webhook key. Decrypting is bound to a purpose (the
 * encryption context secret-box.ts seals with): the deliverer opens webhooks' secrets,
 * the creating function only the answers it keeps for Idempotency-Key replays.
 */
export type KmsAction = 'Encrypt' | `Decrypt:${SealPurpose}`;
export const kmsActionName = (a: KmsAction): string => `kms:${a.split(':')[0]}`;

export interface FunctionAccess {
  readonly items: readonly ItemAction[];
  /** Where the function runs Query: the base table and/or named indexes. */
  readonly query: { readonly table: boolean; readonly indexes: readonly IndexName[] };
  /** Actions on the operation state machine (Start) and its executions (Stop, Describe). */
  readonly states: readonly StatesAction[];
  /** Messages it sends to the webhook delivery queue (adapters/queue/delivery-queue.ts); gives it DELIVERY_QUEUE_URL. */
  readonly queue: readonly QueueAction[];
  /** What it does with the webhook secret key (adapters/crypto/secret-box.ts); gives it WEBHOOK_KMS_KEY_ID. */
  readonly kms: readonly KmsAction[];
  /** It verifies the dashboard's tokens: gives it DASHBOARD_TOKEN_ISSUER and DASHBOARD_CLIENT_ID. */
  readonly userPool?: true;
}

/** Every module in functions/http/ that API Gateway invokes: the route tables' handlers plus the fallback. */
export type HttpHandlerName =
  | (typeof routes)[keyof typeof routes]['handler']
  | (typeof dashboardRoutes)[keyof typeof dashboardRoutes]['handler']
  | 'route-not-found';
/** Every module in functions/workflow/: the ASL's task functions plus the scheduled reconciler. */
export type WorkflowFunctionName = 'start-phase' | 'check-phase' | 'complete-operation' | 'fail-operation' | 'reconcile-operations';
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

// table.ts types the names as IndexName; INDEXES is their one list.
const ALL_INDEXES = INDEXES.map((i) => i.name as IndexName);

const NONE: FunctionAccess = { items: [], query: { table: false, indexes: [] }, states: [], queue: [], kms: [] };

/**
 * Every request with a key (functions/middleware/): the key and any idempotency record
 * (GetItem), the rate-limit counters and the key's last use (UpdateItem), the usage log
 * and an idempotency claim (PutItem). Endpoints that write also release claims (DeleteItem).
 */
const KEYED: FunctionAccess = { ...NONE, items: ['GetItem', 'UpdateItem', 'PutItem'] };

/** A list endpoint: pages come from the list indexes (adapters/dynamo/list-query.ts). */
const LISTS: FunctionAccess = { ...KEYED, query: { table: false, indexes: ALL_INDEXES } };

/**
 * A transition (adapters/dynamo/lifecycle-writes.ts applyTransition) is one transaction
 * of Updates, plus a Delete of the name claim when a deployment is destroyed.
 */
const TRANSITION: readonly ItemAction[] = ['GetItem', 'UpdateItem', 'DeleteItem'];

/**
 * An endpoint that writes records in a transaction (Put, Update) and may run a
 * transition (Delete); a workflow that cannot start also forgets the request's
 * idempotency claim (DeleteItem).
 */
const writer = (states: readonly StatesAction[]): FunctionAccess => ({
  ...KEYED,
  items: [...new Set([...KEYED.items, ...TRANSITION])],
  states,
});

/** A workflow step: reads the operation and its deployment and runs a transition (which appends its events, PutItem). */
const STEP: FunctionAccess = { ...NONE, items: [...TRANSITION, 'PutItem'] };

/** The dashboard API: no key to read or count, the user's token verified against the pool's JWKS. */
const USER: FunctionAccess = { ...NONE, userPool: true };

export const FUNCTION_ACCESS: Readonly<Record<FunctionName, FunctionAccess>> = {
  'dashboard-get-me': USER,
  // The organization's keys through gsi1 (api-key-store.ts listKeys).
  'dashboard-list-keys': { ...USER, query: { table: false, indexes: ['gsi1'] } },
  // saveKey: one transaction, the organization's item (Update) and the key (Put).
  'dashboard-create-key': { ...USER, items: ['UpdateItem', 'PutItem'] },
  // findKeyById through gsi2, then revokeKey (a conditional Update, read back after a lost race).
  'dashboard-revoke-key': { ...USER, items: ['UpdateItem', 'GetItem'], query: { table: false, indexes: ['gsi2'] } },
  // The key through gsi2, then its usage items (the base table, usage-reads.ts).
  'dashboard-list-key-usage': { ...USER, query: { table: true, indexes: ['gsi2'] } },
  'dashboard-list-deployments': { ...USER, query: { table: false, indexes: ALL_INDEXES } },
  'dashboard-list-operations': { ...USER, query: { table: false, indexes: ALL_INDEXES } },
  'dashboard-list-events': { ...USER, query: { table: false, indexes: ALL_INDEXES } },
  'dashboard-get-operation': { ...USER, items: ['GetItem'] },
  'list-environments': KEYED,
  'get-environment': KEYED,
  'get-key': KEYED,
  'get-deployment': KEYED,
  'get-operation': KEYED,
  // Decision 36: reads the operation until it changes (a consistent GetItem every 500 ms).
  'wait-operation': KEYED,
  'list-deployments': LISTS,
  'list-operations': LISTS,
  'list-events': LISTS,
  // Webhooks: items of the organization, counted on it, found through gsi1 (list) and
  // written in transactions (create, delete); deliveries are items of the webhook.
  // A new webhook's signing secret is sealed with the webhook key (KMS Encrypt).
  'create-webhook': { ...writer([]), kms: ['Encrypt', 'Decrypt:replay'] },
  'list-webhooks': { ...KEYED, query: { table: false, indexes: ['gsi1'] } },
  'get-webhook': KEYED,
  'delete-webhook': writer([]),
  'list-webhook-deliveries': { ...KEYED, query: { table: true, indexes: [] } },
  'create-deployment': writer(['StartExecution']),
  // A destroy stops the create still provisioning (decision 11), then starts its own execution.
  'delete-deployment': writer(['StartExecution', 'StopExecution']),
  'create-dag-sync': writer(['StartExecution']),
  'create-app-user': writer(['StartExecution']),
  'cancel-operation': writer(['StopExecution']),
  // Public, computed from the route table: no data access at all.
  'get-openapi': NONE,
  'get-docs': NONE,
  'route-not-found': NONE,
  // The simulated driver keeps its jobs in the table: start-phase creates one (PutItem),
  // check-phase reads it; a cancel (the two writers above, the reconciler) marks it (UpdateItem).
  'start-phase': STEP,
  'check-phase': STEP,
  'complete-operation': STEP,
  'fail-operation': STEP,
  // Finds unfinished operations through gsi5 (it holds only those), asks Step Functions
  // what became of their executions, stops overdue ones, and ends them failed.
  'reconcile-operations': { ...STEP, query: { table: false, indexes: ['gsi5'] }, states: ['DescribeExecution', 'StopExecution'] },
  // Decision 38. The stream's event items → the organization's webhooks (gsi1) → one
  // message each on the delivery queue. Reading the stream is the event source's grant.
  'dispatch-events': { ...NONE, query: { table: false, indexes: ['gsi1'] }, queue: ['SendMessage'] },
  // One message → the webhook and the event (GetItem), its secret opened (KMS Decrypt),
  // the attempt recorded in one transaction (Update webhook, Put attempt), and the next
  // attempt queued on failure. Receiving and deleting messages is the event source's grant.
  'deliver-webhooks': { ...NONE, items: ['GetItem', 'UpdateItem', 'PutItem'], queue: ['SendMessage'], kms: ['Decrypt:delivery'] },
};

/** Whether the function needs the table at all (and so TABLE_NAME). */
export const usesTable = (a: FunctionAccess): boolean => a.items.length > 0 || a.query.table || a.query.indexes.length > 0;
