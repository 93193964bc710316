/** Key builders: the only place that knows how items are addressed (docs/data-model.md). */

/** Sequence numbers are zero-padded so that string order is numeric order. */
export const seqKey = (n: number): string => String(n).padStart(12, '0');

export const orgKey = (orgId: string) => ({ pk: `ORG#${orgId}`, sk: 'ORG' });
export const apiKeyKey = (hash: string) => ({ pk: `KEY#${hash}`, sk: 'KEY' });
export const keyUsagePk = (keyId: string) => `USAGE#${keyId}`;
export const deploymentKey = (orgId: string, id: string) => ({ pk: `ORG#${orgId}`, sk: `DEP#${id}` });
export const operationKey = (orgId: string, id: string) => ({ pk: `ORG#${orgId}`, sk: `OP#${id}` });
export const nameKey = (orgId: string, name: string) => ({ pk: `ORG#${orgId}`, sk: `NAME#${name}` });
export const idempotencyKey = (orgId: string, key: string) => ({ pk: `ORG#${orgId}`, sk: `IDEM#${key}` });
export const webhookKey = (orgId: string, id: string) => ({ pk: `ORG#${orgId}`, sk: `WH#${id}` });
export const deliveryPk = (webhookId: string) => `WHD#${webhookId}`;
export const eventKey = (orgId: string, sequence: number) => ({ pk: `ORG#${orgId}`, sk: `EVT#${seqKey(sequence)}` });
export const simulatedJobKey = (orgId: string, operationId: string, phase: string) => ({
  pk: `ORG#${orgId}`,
  sk: `JOB#${operationId}#${phase}`,
});

/** Partition keys of the list indexes. */
export const lists = {
  orgKeys: (orgId: string) => `ORG#${orgId}#KEYS`,
  keyById: (keyId: string) => `KEYID#${keyId}`,
  deployments: (orgId: string) => `ORG#${orgId}#DEPS`,
  deploymentsByStatus: (orgId: string, status: string) => `ORG#${orgId}#DEPS#${status}`,
  operations: (orgId: string) => `ORG#${orgId}#OPS`,
  operationsByType: (orgId: string, type: string) => `ORG#${orgId}#OPS#TYPE#${type}`,
  operationsByResource: (orgId: string, resourceId: string) => `ORG#${orgId}#RES#${resourceId}`,
  operationsByStatus: (orgId: string, status: string) => `ORG#${orgId}#OPS#STATUS#${status}`,
  operationsByTypeAndStatus: (orgId: string, type: string, status: string) => `ORG#${orgId}#OPS#TYPE#${type}#STATUS#${status}`,
  operationsByResourceAndStatus: (orgId: string, resourceId: string, status: string) => `ORG#${orgId}#RES#${resourceId}#STATUS#${status}`,
  operationsByResourceAndType: (orgId: string, resourceId: string, type: string) => `ORG#${orgId}#RES#${resourceId}#TYPE#${type}`,
  operationsByResourceTypeAndStatus: (orgId: string, resourceId: string, type: string, status: string) =>
    `ORG#${orgId}#RES#${resourceId}#TYPE#${type}#STATUS#${status}`,
  webhooks: (orgId: string) => `ORG#${orgId}#WHS`,
  events: (orgId: string) => `ORG#${orgId}#EVTS`,
  eventsByType: (orgId: string, type: string) => `ORG#${orgId}#EVTS#TYPE#${type}`,
  eventsByResource: (orgId: string, resourceId: string) => `ORG#${orgId}#EVTS#RES#${resourceId}`,
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
