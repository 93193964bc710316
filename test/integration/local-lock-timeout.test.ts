/**
 * DynamoDB Local's lock timeout: a transaction that waited too long on another's lock is
 * answered 500 by DynamoDB Local (never by DynamoDB, which cancels it for a conflict).
 * The local host's stand-ins (decision 330) turn it into that conflict, so a contended
 * write is retried instead of failing; any other 500 still reaches the caller.
 */
import { ddb } from '../../functions/adapters/dynamo/client.js';
import { createKey, newOrgId } from '../helpers/fixtures.js';
import { type FaultKind, injectFaults } from '../helpers/inject-faults.js';

/** The first transaction fails every attempt with `kind` (the SDK's own retries cannot absorb it); later ones go on. */
const firstTransactionFails = (kind: FaultKind) =>
  injectFaults(ddb, {
    commands: ['TransactWriteItemsCommand'],
    share: 1,
    seed: 1,
    attempts: 0,
    surfaceEvery: 1,
    maxHits: 1,
    kinds: [kind],
  });

it("retries a transaction DynamoDB Local gave up on for a lock, as DynamoDB's conflict", async () => {
  const orgId = newOrgId();
  const injection = firstTransactionFails('LocalLockTimeout');
  try {
    const { record } = await createKey({ orgId });
    expect(record.org_id).toBe(orgId);
    expect(injection.surfaced).toBe(1);
    expect(injection.faults.length).toBeGreaterThan(1);
  } finally {
    injection.off();
  }
});

it('lets any other 500 of a transaction reach the caller', async () => {
  const injection = firstTransactionFails('InternalServerError');
  try {
    await expect(createKey({ orgId: newOrgId() })).rejects.toMatchObject({ name: 'InternalServerError' });
    expect(injection.surfaced).toBe(1);
  } finally {
    injection.off();
  }
});
