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
  webhooks: (orgId: string) => `ORG#${orgId}#WHS`,
  events: (orgId: string) => `ORG#${orgId}#EVTS`,
  eventsByType: (orgId: string, type: string) => `ORG#${orgId}#EVTS#TYPE#${type}`,
  eventsByResource: (orgId: string, resourceId: string) => `ORG#${orgId}#EVTS#RES#${resourceId}`,
};

/** gsi5 holds only operations that are not terminal, so the reconciler finds them without a Scan. */
export const ACTIVE_OPERATIONS = 'ACTIVE_OPS';
