/** Key builders: the only place that knows how items are addressed (docs/data-model.md). */

/**
 * The partitions of the table: every partition key starts with one of these. The stack
 * grants each function only the partitions its code touches (IAM dynamodb:LeadingKeys),
 * so an id that could carry a `#` would let a request reach past its own partition:
 * ids reach these builders validated (core/schemas.ts, core/api-keys.ts checkOrgId), and `segment` refuses a `#` anyway.
 */
export const PARTITIONS = {
  /** An organization and everything it owns, and its list indexes' partitions. */
  org: 'ORG#',
  /** An API key, by the SHA-256 of the key. */
  apiKey: 'KEY#',
  /** An API key, by its id (gsi2). */
  apiKeyId: 'KEYID#',
  usage: 'USAGE#',
  deliveries: 'WHD#',
  /** Failed authentications per client address (middleware/auth-failure-limit.ts). */
  authFailures: 'AUTHFAIL#',
  /** The local delivery queue (on AWS, SQS). */
  localQueue: 'QUEUE#',
} as const;
export type Partition = keyof typeof PARTITIONS;

/** An id inside a partition key: never a `#`, which would address another partition. */
const segment = (id: string): string => {
  if (id.includes('#')) throw new Error(`an id in a table key contains "#": ${JSON.stringify(id.slice(0, 80))}`);
  return id;
};
const org = (orgId: string) => `${PARTITIONS.org}${segment(orgId)}`;

/** Sequence numbers are zero-padded so that string order is numeric order. */
export const seqKey = (n: number): string => String(n).padStart(12, '0');

export const orgKey = (orgId: string) => ({ pk: org(orgId), sk: 'ORG' });
export const apiKeyKey = (hash: string) => ({ pk: `${PARTITIONS.apiKey}${segment(hash)}`, sk: 'KEY' });
export const keyUsagePk = (keyId: string) => `${PARTITIONS.usage}${segment(keyId)}`;
export const authFailureKey = (address: string, windowStart: number) => ({
  pk: `${PARTITIONS.authFailures}${segment(address)}`,
  sk: String(windowStart),
});
export const deploymentKey = (orgId: string, id: string) => ({ pk: org(orgId), sk: `DEP#${id}` });
export const operationKey = (orgId: string, id: string) => ({ pk: org(orgId), sk: `OP#${id}` });
export const nameKey = (orgId: string, name: string) => ({ pk: org(orgId), sk: `NAME#${name}` });
export const idempotencyKey = (orgId: string, key: string) => ({ pk: org(orgId), sk: `IDEM#${key}` });
export const webhookKey = (orgId: string, id: string) => ({ pk: org(orgId), sk: `WH#${id}` });
export const deliveryPk = (webhookId: string) => `${PARTITIONS.deliveries}${segment(webhookId)}`;
export const eventKey = (orgId: string, sequence: number) => ({ pk: org(orgId), sk: `EVT#${seqKey(sequence)}` });
/** A deployment's revision n (decision 43): its revisions are one key range, in order. */
export const revisionKey = (orgId: string, deploymentId: string, n: number) => ({
  pk: org(orgId),
  sk: `REV#${segment(deploymentId)}#${seqKey(n)}`,
});
export const simulatedJobKey = (orgId: string, operationId: string, phase: string) => ({
  pk: org(orgId),
  sk: `JOB#${operationId}#${phase}`,
});

/** An organization's keys are listed (gsi1) under `ORG#<org>#KEYS`: only key management reads it. */
export const KEY_LIST_SUFFIX = '#KEYS';

/** Partition keys of the list indexes. */
export const lists = {
  orgKeys: (orgId: string) => `${org(orgId)}${KEY_LIST_SUFFIX}`,
  keyById: (keyId: string) => `${PARTITIONS.apiKeyId}${segment(keyId)}`,
  deployments: (orgId: string) => `${org(orgId)}#DEPS`,
  deploymentsByStatus: (orgId: string, status: string) => `${org(orgId)}#DEPS#${status}`,
  operations: (orgId: string) => `${org(orgId)}#OPS`,
  operationsByType: (orgId: string, type: string) => `${org(orgId)}#OPS#TYPE#${type}`,
  operationsByResource: (orgId: string, resourceId: string) => `${org(orgId)}#RES#${segment(resourceId)}`,
  operationsByStatus: (orgId: string, status: string) => `${org(orgId)}#OPS#STATUS#${status}`,
  operationsByTypeAndStatus: (orgId: string, type: string, status: string) => `${org(orgId)}#OPS#TYPE#${type}#STATUS#${status}`,
  operationsByResourceAndStatus: (orgId: string, resourceId: string, status: string) =>
    `${org(orgId)}#RES#${segment(resourceId)}#STATUS#${status}`,
  operationsByResourceAndType: (orgId: string, resourceId: string, type: string) => `${org(orgId)}#RES#${segment(resourceId)}#TYPE#${type}`,
  operationsByResourceTypeAndStatus: (orgId: string, resourceId: string, type: string, status: string) =>
    `${org(orgId)}#RES#${segment(resourceId)}#TYPE#${type}#STATUS#${status}`,
  webhooks: (orgId: string) => `${org(orgId)}#WHS`,
  events: (orgId: string) => `${org(orgId)}#EVTS`,
  eventsByType: (orgId: string, type: string) => `${org(orgId)}#EVTS#TYPE#${type}`,
  eventsByResource: (orgId: string, resourceId: string) => `${org(orgId)}#EVTS#RES#${segment(resourceId)}`,
};

/**
 * Status counts of a dense list, per bucket of STATUS_BUCKET positions (docs/data-model.md):
 * `base` is the list's partition key (all operations, one type, one deployment, one
 * deployment and type, all deployments); each bucket item holds `n_<status>`.
 */
// 50: a page skips fewer than 50 members of its bucket to reach its first one, so any
// page of 50 costs at most about twice page 1; smaller buckets mean more count items to read.
export const STATUS_BUCKET = 50;
export const statusCountsPk = (base: string) => `${base}#COUNTS`;
export const statusCountsKey = (base: string, position: number) => ({
  pk: statusCountsPk(base),
  sk: seqKey(Math.floor((position - 1) / STATUS_BUCKET)),
});

/** gsi5 holds only operations that are not terminal, so the reconciler finds them without a Scan. */
export const ACTIVE_OPERATIONS = 'ACTIVE_OPS';
