/**
 * Every item type of the table, declared once: its keys and its named indexes (entity.ts
 * says how a declaration reads; entity-docs.ts what each holds). Item builders, reads, the stack's
 * grants (infra/aws/function-access.ts) and docs/data-model.md derive from these, and
 * test/unit/entities.test.ts checks the doc and the grants' partitions against them.
 * A new item type is one more declaration here.
 */
import { isTerminal, type OperationStatus } from '../vocabulary.js';
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
  /** The dashboard API's requests per user and clock hour (decision 232). */
  userRate: 'USERRATE#',
  /** The local delivery queue (on AWS, SQS). */
  localQueue: 'QUEUE#',
} as const;
export type Partition = keyof typeof PARTITIONS;

const ORG = `${PARTITIONS.org}{org_id}`;

/** A status counts bucket holds STATUS_BUCKET positions of its list. */
// 50: a page skips fewer than 50 members of its bucket to reach its first one, so any
// page of 50 costs at most about twice page 1; smaller buckets mean more count items to read.
export const STATUS_BUCKET = 50;

export const organization = /* @__PURE__ */ entity('organization', {
  pk: ORG,
  sk: 'ORG',
});
/** The organization's count of operations of one type: the dense sequence of that type. */
export const typeSeqAttr = (type: string) => `seq_${type}`;
/** The organization's count of events of one type. */
export const eventTypeSeqAttr = (type: string) => `evt_seq_${type}`;

export const deployment = /* @__PURE__ */ entity('deployment', {
  pk: ORG,
  sk: 'DEP#{id}',
  indexes: {
    deployments: { physical: 'gsi1', pk: `${ORG}#DEPS`, sk: '{seq}', byStatus: 'deploymentsByStatus' },
    deploymentsByStatus: { physical: 'gsi4', pk: `${ORG}#DEPS#{status}`, sk: '{seq}' },
    // Sparse (decision 260): only deployments with a schedule or a hold, by the next minute the
    // scheduler is to visit them, so it finds the due ones with one Query and no Scan.
    hibernationDue: {
      physical: 'gsi5',
      pk: 'HIBERNATION_DUE',
      sk: '{hibernation_due}#{org_id}#{id}',
      when: (v) => typeof v.hibernation_due === 'string',
    },
  },
});
/**
 * Decision 48: a deployment's health as the checker last found it, its components with
 * theirs. An item of its own beside the deployment (decision 245): a check that changes
 * nothing writes only this small item's `checked_at`, and one Query of the deployment's
 * key range reads both. While the deployment is ready it is in healthChecks, so the
 * checker walks the ready deployments without a Scan.
 */
export const deploymentHealth = /* @__PURE__ */ entity('deploymentHealth', {
  pk: ORG,
  sk: 'DEP#{deployment_id}#HEALTH',
  indexes: {
    healthChecks: { physical: 'gsi5', pk: 'HEALTH_CHECKS', sk: '{org_id}#{deployment_id}', when: (v) => v.watched === true },
  },
});

/** A deployment's count of operations of one type: the dense sequence of (deployment, type). */
export const opCountAttr = (type: string) => `op_count_${type}`;

const OPS = `${ORG}#OPS`;
const RES = `${ORG}#RES#{resource_id}`;
export const operation = /* @__PURE__ */ entity('operation', {
  pk: ORG,
  sk: 'OP#{id}',
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

export const statusCounts = /* @__PURE__ */ entity('statusCounts', {
  pk: '{list*}#COUNTS',
  sk: '{bucket}',
});
/** The counts item of the bucket that holds `position` of `list` (a dense list's partition key). */
export const statusCountsKey = (list: string, position: number) =>
  statusCounts.key({ list, bucket: Math.floor((position - 1) / STATUS_BUCKET) });

export const nameReservation = /* @__PURE__ */ entity('nameReservation', {
  pk: ORG,
  sk: 'NAME#{name}',
});

export const waitSlot = /* @__PURE__ */ entity('waitSlot', {
  pk: ORG,
  sk: 'WAIT#{slot}',
});

export const idempotencyRecord = /* @__PURE__ */ entity('idempotencyRecord', {
  pk: ORG,
  sk: 'IDEM#{key}',
});

export const event = /* @__PURE__ */ entity('event', {
  pk: ORG,
  sk: 'EVT#{sequence}',
  indexes: {
    events: { physical: 'gsi1', pk: `${ORG}#EVTS`, sk: '{sequence}' },
    eventsByType: { physical: 'gsi2', pk: `${ORG}#EVTS#TYPE#{type}`, sk: '{type_sequence}' },
    eventsByResource: { physical: 'gsi3', pk: `${ORG}#EVTS#RES#{resource_id}`, sk: '{sequence}' },
  },
});

export const webhook = /* @__PURE__ */ entity('webhook', {
  pk: ORG,
  sk: 'WH#{id}',
  indexes: { webhooks: { physical: 'gsi1', pk: `${ORG}#WHS`, sk: '{created_at}#{id}' } },
});

export const deliveryAttempt = /* @__PURE__ */ entity('deliveryAttempt', {
  pk: `${PARTITIONS.deliveries}{webhook_id}`,
  sk: '{attempted_at}#{id}',
});

export const queuedDelivery = /* @__PURE__ */ entity('queuedDelivery', {
  pk: `${PARTITIONS.localQueue}{queue}`,
  sk: '{visible_at}#{id}',
});

export const revision = /* @__PURE__ */ entity('revision', {
  pk: ORG,
  sk: 'REV#{deployment_id}#{revision}',
});

export const operationLogLine = /* @__PURE__ */ entity('operationLogLine', {
  pk: ORG,
  sk: 'LOG#{operation_id}#{sequence}',
});

export const simulatedJob = /* @__PURE__ */ entity('simulatedJob', {
  pk: ORG,
  sk: 'JOB#{operation_id}#{phase}',
});

export const apiKey = /* @__PURE__ */ entity('apiKey', {
  pk: `${PARTITIONS.apiKey}{hash}`,
  sk: 'KEY',
  indexes: {
    // Only key management reads an organization's keys (infra/aws/function-access.ts).
    keysByOrg: { physical: 'gsi1', pk: `${ORG}#KEYS`, sk: '{created_at}#{id}' },
    keyById: { physical: 'gsi2', pk: `${PARTITIONS.apiKeyId}{id}`, sk: 'KEY' },
  },
});

export const usageEntry = /* @__PURE__ */ entity('usageEntry', {
  pk: `${PARTITIONS.usage}{key_id}`,
  sk: '{at}#{id}',
});

export const authFailures = /* @__PURE__ */ entity('authFailures', {
  pk: `${PARTITIONS.authFailures}{address}`,
  sk: '{window_start}',
});

export const userRate = /* @__PURE__ */ entity('userRate', {
  pk: `${PARTITIONS.userRate}{user_id}`,
  sk: '{hour_start}',
});

/** Every item type, for the doc and the checks. */
export const ENTITIES = [
  organization,
  deployment,
  deploymentHealth,
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
  userRate,
] as const;

/**
 * The index names reads use, each mapped to its physical index once (above). Built in a
 * call marked pure: a bundle that does not read INDEX then drops the entities too.
 */
export const INDEX = /* @__PURE__ */ (() => ({
  ...deployment.indexes,
  ...deploymentHealth.indexes,
  ...operation.indexes,
  ...event.indexes,
  ...webhook.indexes,
  ...apiKey.indexes,
}))();
export type IndexName = keyof typeof INDEX;

// Keys as the code addresses them.
export const orgKey = (orgId: string) => organization.key({ org_id: orgId });
export const deploymentKey = (orgId: string, id: string) => deployment.key({ org_id: orgId, id });
export const deploymentHealthKey = (orgId: string, id: string) => deploymentHealth.key({ org_id: orgId, deployment_id: id });
export const operationKey = (orgId: string, id: string) => operation.key({ org_id: orgId, id });
export const nameKey = (orgId: string, name: string) => nameReservation.key({ org_id: orgId, name });
export const waitSlotKey = (orgId: string, slot: number) => waitSlot.key({ org_id: orgId, slot });
export const idempotencyKey = (orgId: string, key: string) => idempotencyRecord.key({ org_id: orgId, key });
export const webhookKey = (orgId: string, id: string) => webhook.key({ org_id: orgId, id });
export const eventKey = (orgId: string, sequence: number) => event.key({ org_id: orgId, sequence });
export const apiKeyKey = (hash: string) => apiKey.key({ hash });
export const keyUsagePk = (keyId: string) => usageEntry.pk.build({ key_id: keyId });
export const deliveryPk = (webhookId: string) => deliveryAttempt.pk.build({ webhook_id: webhookId });
export const userRateKey = (userId: string, hourStart: number) => userRate.key({ user_id: userId, hour_start: String(hourStart) });
export const authFailureKey = (address: string, windowStart: number) => authFailures.key({ address, window_start: String(windowStart) });
export const revisionKey = (orgId: string, deploymentId: string, n: number) =>
  revision.key({ org_id: orgId, deployment_id: deploymentId, revision: n });
export const logLineKey = (orgId: string, operationId: string, sequence: number) =>
  operationLogLine.key({ org_id: orgId, operation_id: operationId, sequence });
export const simulatedJobKey = (orgId: string, operationId: string, phase: string) =>
  simulatedJob.key({ org_id: orgId, operation_id: operationId, phase });
