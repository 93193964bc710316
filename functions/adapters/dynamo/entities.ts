/**
 * Every item type of the table, declared once: its keys, its attributes and its named
 * indexes (entity.ts says how a declaration reads). Item builders, reads, the stack's
 * grants (infra/aws/function-access.ts) and docs/data-model.md derive from these, and
 * test/unit/entities.test.ts checks the doc and the grants' partitions against them.
 * A new item type is one more declaration here.
 */
import type { ApiKeyRecord } from '../../core/api-keys.js';
import type { DeploymentRecord } from '../../core/deployments.js';
import { isTerminal, type OperationPositions, type OperationRecord } from '../../core/operations.js';
import type { RevisionRecord } from '../../core/revisions.js';
import type { OperationStatus } from '../../core/schemas.js';
import { entity, seqKey } from './entity.js';

export { seqKey };

/**
 * The partitions of the table: every partition key (of the table or of an index) starts
 * with one of these, or is an index's one constant partition. The stack grants each
 * function only the partitions its code touches (IAM dynamodb:LeadingKeys).
 */
export const PARTITIONS = {
  /** An organization and everything it owns, and its list indexes' partitions. */
  org: 'ORG#',
  /** An API key, by the SHA-256 of the key. */
  apiKey: 'KEY#',
  /** An API key, by its id (apiKey.keyById). */
  apiKeyId: 'KEYID#',
  usage: 'USAGE#',
  deliveries: 'WHD#',
  /** Failed authentications per client address (middleware/auth-failure-limit.ts). */
  authFailures: 'AUTHFAIL#',
  /** The local delivery queue (on AWS, SQS). */
  localQueue: 'QUEUE#',
} as const;
export type Partition = keyof typeof PARTITIONS;

const ORG = `${PARTITIONS.org}{org_id}`;

/** A status counts bucket holds STATUS_BUCKET positions of its list. */
// 50: a page skips fewer than 50 members of its bucket to reach its first one, so any
// page of 50 costs at most about twice page 1; smaller buckets mean more count items to read.
export const STATUS_BUCKET = 50;

export const organization = entity('organization', {
  description: 'an organization: its counters, each written under its lock `ver`',
  pk: ORG,
  sk: 'ORG',
  attributes: {
    ver: 'the optimistic lock every numbering write takes',
    last_at: 'the instant of the last record written: the next one is later',
    dep_seq: 'deployments, 1..n',
    op_seq: 'operations, 1..n',
    'seq_<type>': 'operations of one type, 1..n',
    evt_seq: 'events, 1..n (decision 37)',
    'evt_seq_<type>': 'events of one type, 1..n',
    create_hour: 'the clock hour of create_count',
    create_count: 'creations this hour (decision 32)',
    wh_count: 'webhooks, fewer than 10 (decision 38)',
    key_count: 'keys held (not revoked, not rotated away), at most `KEYS_PER_ORGANIZATION` (decision 130); absent is 0',
    org_id: 'the organization',
    created_at: 'its first key',
  },
});
/** The organization's count of operations of one type: the dense sequence of that type. */
export const typeSeqAttr = (type: string) => `seq_${type}`;
/** The organization's count of events of one type. */
export const eventTypeSeqAttr = (type: string) => `evt_seq_${type}`;

export const deployment = entity('deployment', {
  description: 'a deployment',
  pk: ORG,
  sk: 'DEP#{id}',
  attributes: {
    'id, org_id, name, app_type, status, environment_id, created_at, updated_at, last_operation_id': 'the record',
    'config, revision, applied_at':
      'its configuration (secrets sealed, with their digests) and revision (decision 41); absent on items stored before: revision 1, the default',
    in_flight: 'a string set of `<type> <id>` of its operations queued or running (decision 42)',
    seq: 'its position among the organization’s deployments',
    op_count: 'its operations, 1..n',
    'op_count_<type>': 'its operations of one type, 1..n',
  },
  indexes: {
    deployments: { physical: 'gsi1', pk: `${ORG}#DEPS`, sk: '{seq}', byStatus: 'deploymentsByStatus' },
    deploymentsByStatus: { physical: 'gsi4', pk: `${ORG}#DEPS#{status}`, sk: '{seq}' },
  },
});
/** A deployment's count of operations of one type: the dense sequence of (deployment, type). */
export const opCountAttr = (type: string) => `op_count_${type}`;

const OPS = `${ORG}#OPS`;
const RES = `${ORG}#RES#{resource_id}`;
export const operation = entity('operation', {
  description:
    'an operation: its four status indexes’ partitions move with its status; activeOperations holds it only while queued or running',
  pk: ORG,
  sk: 'OP#{id}',
  attributes: {
    'id, org_id, type, status, phase, message, resource_id, requested_at, started_at, ended_at, error, result, params, job': 'the record',
    update: 'deployment.update: the configuration to apply (secrets sealed), its changes, the revision a rollback restores',
    'seq, type_seq, res_seq, res_type_seq': 'its positions in its four dense lists',
    'log_count, log_at': 'its log (decision 45): the lines written, 1..n, and the time of the last; absent before the first',
  },
  indexes: {
    operations: { physical: 'gsi1', pk: OPS, sk: '{seq}', byStatus: 'opsByStatus' },
    opsByType: { physical: 'gsi2', pk: `${OPS}#TYPE#{type}`, sk: '{type_seq}', byStatus: 'opsByTypeStatus' },
    opsByResource: { physical: 'gsi3', pk: RES, sk: '{res_seq}', byStatus: 'opsByResourceStatus' },
    opsByResourceType: { physical: 'gsi8', pk: `${RES}#TYPE#{type}`, sk: '{res_type_seq}', byStatus: 'opsByResourceTypeStatus' },
    opsByStatus: { physical: 'gsi4', pk: `${OPS}#STATUS#{status}`, sk: '{seq}' },
    opsByTypeStatus: { physical: 'gsi6', pk: `${OPS}#TYPE#{type}#STATUS#{status}`, sk: '{type_seq}' },
    opsByResourceStatus: { physical: 'gsi7', pk: `${RES}#STATUS#{status}`, sk: '{res_seq}' },
    opsByResourceTypeStatus: { physical: 'gsi9', pk: `${RES}#TYPE#{type}#STATUS#{status}`, sk: '{res_type_seq}' },
    // Sparse: only operations not yet terminal, so the reconciler finds them without a Scan.
    activeOperations: {
      physical: 'gsi5',
      pk: 'ACTIVE_OPS',
      sk: '{requested_at}#{id}',
      when: (v) => !isTerminal(v.status as OperationStatus),
    },
  },
});

export const statusCounts = entity('statusCounts', {
  description:
    'the status counts of one bucket of a dense list (status-counts.ts): `<list>` is the list’s partition (e.g. `ORG#<org_id>#OPS`), `<bucket>` = (position − 1) ÷ 50',
  pk: '{list*}#COUNTS',
  sk: '{bucket}',
  attributes: { 'n_<status>': 'how many members at the bucket’s positions are in that status' },
});
/** The counts item of the bucket that holds `position` of `list` (a dense list's partition key). */
export const statusCountsKey = (list: string, position: number) =>
  statusCounts.key({ list, bucket: Math.floor((position - 1) / STATUS_BUCKET) });

export const nameReservation = entity('nameReservation', {
  description: 'a deployment name held (decision 6): deleted when its deployment is destroyed',
  pk: ORG,
  sk: 'NAME#{name}',
  attributes: { deployment_id: 'who holds it', name: 'the name, exact and case-sensitive' },
});

export const waitSlot = entity('waitSlot', {
  description: 'one of the organization’s slots for a concurrent operation wait: a lease that lapses by itself',
  pk: ORG,
  sk: 'WAIT#{slot}',
  attributes: { holder: 'the wait that holds it', lease_until: 'when it lapses (epoch seconds)', ttl: 'the same' },
});

export const idempotencyRecord = entity('idempotencyRecord', {
  description: 'an Idempotency-Key’s claim and answer',
  pk: ORG,
  sk: 'IDEM#{key}',
  attributes: { 'state, fingerprint, claim_id, lease_until, response': 'the claim', ttl: '24 h' },
});

export const event = entity('event', {
  description: 'an event (decision 37); `<type_sequence>`, its number among its type, is not stored',
  pk: ORG,
  sk: 'EVT#{sequence}',
  attributes: {
    'id, type, sequence, created_at, data, resource_id': 'the event',
    actor: 'who made the change (decision 46); absent on events written before it, read as the system (decision 140)',
  },
  indexes: {
    events: { physical: 'gsi1', pk: `${ORG}#EVTS`, sk: '{sequence}' },
    eventsByType: { physical: 'gsi2', pk: `${ORG}#EVTS#TYPE#{type}`, sk: '{type_sequence}' },
    eventsByResource: { physical: 'gsi3', pk: `${ORG}#EVTS#RES#{resource_id}`, sk: '{sequence}' },
  },
});

export const webhook = entity('webhook', {
  description: 'a webhook (decision 38); the organization item counts them',
  pk: ORG,
  sk: 'WH#{id}',
  attributes: {
    'id, org_id, url, events, description, created_at': 'the record',
    secret_sealed: 'its secret, sealed',
    delivery_count: 'its attempts',
  },
  indexes: { webhooks: { physical: 'gsi1', pk: `${ORG}#WHS`, sk: '{created_at}#{id}' } },
});

export const deliveryAttempt = entity('deliveryAttempt', {
  description: 'one attempt to deliver an event to a webhook',
  pk: `${PARTITIONS.deliveries}{webhook_id}`,
  sk: '{attempted_at}#{id}',
  attributes: { 'event_id, attempt, attempted_at, status_code, succeeded': 'the attempt', ttl: '30 days' },
});

export const queuedDelivery = entity('queuedDelivery', {
  description: 'a delivery waiting in the local queue (on AWS, SQS)',
  pk: `${PARTITIONS.localQueue}{queue}`,
  sk: '{visible_at}#{id}',
  attributes: { body: 'the message', claimed_until: 'while a deliverer holds it' },
});

export const revision = entity('revision', {
  description: 'a deployment’s revision n (decision 43): its revisions are one key range, so a page reads what it returns',
  pk: ORG,
  sk: 'REV#{deployment_id}#{revision}',
  attributes: { 'deployment_id, revision, config, created_at, operation_id, rollback_of': 'the revision (secrets sealed)' },
});

export const operationLogLine = entity('operationLogLine', {
  description:
    'line n of an operation’s log (decision 45), written in the transaction that counts it on the operation; an operation’s lines are one key range, so a page reads what it returns',
  pk: ORG,
  sk: 'LOG#{operation_id}#{sequence}',
  attributes: { 'operation_id, sequence, time, phase, level, message': 'the line' },
});

export const simulatedJob = entity('simulatedJob', {
  description: 'a job of the simulated platform (only the simulated driver writes these)',
  pk: ORG,
  sk: 'JOB#{operation_id}#{phase}',
  attributes: { 'phase, ends_at, outcome': 'the job', state: 'running or canceled', ttl: '7 days' },
});

export const apiKey = entity('apiKey', {
  description: 'an API key, by the SHA-256 of the key',
  pk: `${PARTITIONS.apiKey}{hash}`,
  sk: 'KEY',
  attributes: {
    'id, org_id, name, scopes, hash, hint, created_at, expires_at, revoked_at, last_used_at': 'the record',
    'rate_hour, rate_n, rate_m00…rate_m59': 'the rate-limit windows: this hour, its minutes',
    counted: 'present while the key holds one of its organization’s `key_count` places (decision 130)',
  },
  indexes: {
    // Only key management reads an organization's keys (infra/aws/function-access.ts).
    keysByOrg: { physical: 'gsi1', pk: `${ORG}#KEYS`, sk: '{created_at}#{id}' },
    keyById: { physical: 'gsi2', pk: `${PARTITIONS.apiKeyId}{id}`, sk: 'KEY' },
  },
});

export const usageEntry = entity('usageEntry', {
  description: 'one request in a key’s usage log',
  pk: `${PARTITIONS.usage}{key_id}`,
  sk: '{at}#{id}',
  attributes: {
    'at, method, route, path, status, key_id, org_id, request_id, client_address':
      'the entry (route: the template matched; path: the path named)',
    duration_ms: 'from arrival to answer, on entries written or corrected after the answer (decision 145)',
    deprecated: 'true when the request used a deprecated feature (decision 44)',
    ttl: '90 days',
  },
});

export const authFailures = entity('authFailures', {
  description: 'failed authentications of one client address in one 10-minute window (written only when a well-formed key matched nothing)',
  pk: `${PARTITIONS.authFailures}{address}`,
  sk: '{window_start}',
  attributes: { n: 'the failures', ttl: 'the window’s end + 10 minutes' },
});

/** Every item type, for the doc and the checks. */
export const ENTITIES = [
  organization,
  deployment,
  operation,
  statusCounts,
  nameReservation,
  waitSlot,
  idempotencyRecord,
  event,
  webhook,
  revision,
  operationLogLine,
  deliveryAttempt,
  queuedDelivery,
  simulatedJob,
  apiKey,
  usageEntry,
  authFailures,
] as const;

/** The index names reads use, each mapped to its physical index once (above). */
export const INDEX = { ...deployment.indexes, ...operation.indexes, ...event.indexes, ...webhook.indexes, ...apiKey.indexes };
export type IndexName = keyof typeof INDEX;

// Keys as the code addresses them.
export const orgKey = (orgId: string) => organization.key({ org_id: orgId });
export const deploymentKey = (orgId: string, id: string) => deployment.key({ org_id: orgId, id });
export const operationKey = (orgId: string, id: string) => operation.key({ org_id: orgId, id });
export const nameKey = (orgId: string, name: string) => nameReservation.key({ org_id: orgId, name });
export const waitSlotKey = (orgId: string, slot: number) => waitSlot.key({ org_id: orgId, slot });
export const idempotencyKey = (orgId: string, key: string) => idempotencyRecord.key({ org_id: orgId, key });
export const webhookKey = (orgId: string, id: string) => webhook.key({ org_id: orgId, id });
export const eventKey = (orgId: string, sequence: number) => event.key({ org_id: orgId, sequence });
export const apiKeyKey = (hash: string) => apiKey.key({ hash });
export const keyUsagePk = (keyId: string) => usageEntry.pk.build({ key_id: keyId });
export const deliveryPk = (webhookId: string) => deliveryAttempt.pk.build({ webhook_id: webhookId });
export const authFailureKey = (address: string, windowStart: number) => authFailures.key({ address, window_start: String(windowStart) });
export const revisionKey = (orgId: string, deploymentId: string, n: number) =>
  revision.key({ org_id: orgId, deployment_id: deploymentId, revision: n });
export const logLineKey = (orgId: string, operationId: string, sequence: number) =>
  operationLogLine.key({ org_id: orgId, operation_id: operationId, sequence });
export const simulatedJobKey = (orgId: string, operationId: string, phase: string) =>
  simulatedJob.key({ org_id: orgId, operation_id: operationId, phase });

// Items as the write path puts them (and the benchmark's seed, attribute for attribute).
type Item = Record<string, unknown>;

export function deploymentItem(d: DeploymentRecord, seq: number): Item {
  const { op_counts = {}, in_flight, ...record } = d;
  // A string set: operations join and leave it in their own writes (ADD, DELETE) without reading it.
  const values = { ...record, ...(in_flight.length ? { in_flight: new Set(in_flight) } : {}), seq };
  const counts = Object.fromEntries(Object.entries(op_counts).map(([t, n]) => [opCountAttr(t), n]));
  return { ...deployment.key(values), ...values, ...counts, ...deployment.indexKeys(values) };
}

/** An operation's attributes with its positions in its dense lists. */
function operationValues(op: OperationRecord, p: OperationPositions): Item {
  const { positions: _, ...record } = op;
  return { ...record, seq: p.all, type_seq: p.type, res_seq: p.resource, res_type_seq: p.resourceType };
}

export function operationItem(op: OperationRecord, p: OperationPositions): Item {
  const values = operationValues(op, p);
  return { ...operation.key(values), ...values, ...operation.indexKeys(values) };
}

/** The dense lists an operation is counted in by status, with its position in each. */
export function operationCountedIn(op: OperationRecord): [list: string, position: number][] {
  if (!op.positions) throw new Error(`operation ${op.id} was not read with its list positions`);
  return operation.countedIn(operationValues(op, op.positions));
}

/** The one dense list a deployment is counted in by status: the organization's deployments. */
export function deploymentCountedIn(d: DeploymentRecord): [list: string, position: number][] {
  if (d.seq === undefined) throw new Error(`deployment ${d.id} was not read with its list position`);
  return deployment.countedIn({ ...d });
}

export function eventItem(
  orgId: string,
  e: {
    id: string;
    type: string;
    sequence: number;
    typeSequence: number;
    createdAt: string;
    actor: unknown;
    data: unknown;
    resourceId: string;
  },
): Item {
  const values = {
    id: e.id,
    type: e.type,
    sequence: e.sequence,
    created_at: e.createdAt,
    actor: e.actor,
    data: e.data,
    resource_id: e.resourceId,
  };
  const keys = { ...values, org_id: orgId, type_sequence: e.typeSequence };
  return { ...event.key(keys), ...values, ...event.indexKeys(keys) };
}

export const revisionItem = (r: RevisionRecord): Item => ({ ...revisionKey(r.org_id, r.deployment_id, r.revision), ...r });

export const nameItem = (orgId: string, name: string, deploymentId: string): Item => ({
  ...nameKey(orgId, name),
  deployment_id: deploymentId,
  name,
});

export function apiKeyItem(record: ApiKeyRecord): Item {
  const values = { ...record };
  return { ...apiKey.key(values), ...values, ...apiKey.indexKeys(values) };
}

export const webhookItem = (w: { org_id: string; id: string; created_at: string }): Item => ({
  ...webhook.key(w),
  ...w,
  ...webhook.indexKeys(w),
});
