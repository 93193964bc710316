/**
 * The grant check (test/helpers/grant-check.ts) judges every request a function sends in
 * every test file against that function's IAM grants, and fails the file on a refusal.
 * Here: that it refuses what the roles must refuse (so a passing run means something),
 * and that it sees the request path's real requests and lets them through.
 */

import type { DeliveryMessage } from '../../functions/core/delivery-queue.js';
import { runAsFunction } from '../../local/current-function.js';
import { call, createKey } from '../helpers/fixtures.js';
import { judged, judgedStandIns, refusals } from '../helpers/grant-check.js';

const admissionLike = {
  TableName: 't',
  Key: { pk: 'KEY#abc', sk: 'KEY' },
  UpdateExpression: 'SET last_used_at = :now ADD rate_n :one, #m :one',
  ConditionExpression: 'attribute_exists(pk) AND (attribute_not_exists(revoked_at) OR attribute_type(revoked_at, :null))',
  ExpressionAttributeNames: { '#m': 'rate_m07' },
  ReturnValues: 'ALL_OLD',
};
/** The encryption context of a sealed webhook secret (core/secret-sealer.ts). */
const bound = { purpose: 'delivery', org: 'org-x', record: 'wh_1' };

/** A query of an organization's key list (apiKey.keysByOrg). */
const KEY_LIST_QUERY = {
  IndexName: 'gsi1',
  KeyConditionExpression: '#p = :pk',
  ExpressionAttributeNames: { '#p': 'gsi1pk' },
  ExpressionAttributeValues: { ':pk': 'ORG#org-x#KEYS' },
};

describe('the grant check', () => {
  it.each([
    ['a read-only handler writing a key', 'get-deployment', 'PutCommand', { Item: { pk: 'KEY#abc', sk: 'KEY', org_id: 'org-x' } }],
    ['the request path widening a key', 'get-key', 'UpdateCommand', { ...admissionLike, UpdateExpression: 'SET scopes = :all' }],
    [
      'the request path moving a key to another organization',
      'get-key',
      'UpdateCommand',
      { ...admissionLike, UpdateExpression: 'SET org_id = :o' },
    ],
    ['the request path asking for the key as it becomes', 'get-key', 'UpdateCommand', { ...admissionLike, ReturnValues: 'ALL_NEW' }],
    [
      "a list reading an organization's key list",
      'list-deployments',
      'QueryCommand',
      { IndexName: 'gsi1', KeyConditionExpression: 'gsi1pk = :pk', ExpressionAttributeValues: { ':pk': 'ORG#org-x#KEYS' } },
    ],
    [
      'a list reading an index it is not granted',
      'list-webhooks',
      'QueryCommand',
      { IndexName: 'gsi4', KeyConditionExpression: 'gsi4pk = :pk', ExpressionAttributeValues: { ':pk': 'ORG#org-x' } },
    ],
    [
      'a query naming no partition',
      'list-deployments',
      'QueryCommand',
      { IndexName: 'gsi1', KeyConditionExpression: 'gsi1sk > :s', ExpressionAttributeValues: { ':s': 'a' } },
    ],
    ['a scan', 'list-deployments', 'ScanCommand', {}],
    [
      'a workflow step deleting a key, inside a transaction',
      'complete-operation',
      'TransactWriteItemsCommand',
      { TransactItems: [{ Put: { Item: { pk: 'ORG#org-x', sk: 'DEP#1' } } }, { Delete: { Key: { pk: 'KEY#abc', sk: 'KEY' } } }] },
    ],
    [
      'key management writing more of the organization than its key count',
      'dashboard-revoke-key',
      'UpdateCommand',
      { Key: { pk: 'ORG#org-x', sk: 'ORG' }, UpdateExpression: 'ADD wh_count :minus', ExpressionAttributeValues: { ':minus': -1 } },
    ],
    [
      "key management putting an organization's item",
      'dashboard-create-key',
      'PutCommand',
      { Item: { pk: 'ORG#org-x', sk: 'ORG', key_count: 0 } },
    ],
    [
      "a dashboard list other than the activity page reading an organization's key list",
      'dashboard-list-events',
      'QueryCommand',
      KEY_LIST_QUERY,
    ],
    ['the public docs reading anything', 'get-openapi', 'GetCommand', { Key: { pk: 'ORG#org-x', sk: 'ORG' } }],
    ['a function queueing without a queue grant', 'list-events', 'SendMessageCommand', {}],
    // The local queue's items are the host's (local/table-queue.ts): no function writes them.
    [
      "the deliverer writing the local queue's items itself",
      'deliver-webhooks',
      'PutCommand',
      { Item: { pk: 'QUEUE#webhook-deliveries', sk: '1' } },
    ],
    ['the deliverer opening a kept answer', 'deliver-webhooks', 'DecryptCommand', { EncryptionContext: { purpose: 'replay' } }],
    ['a function sealing without a key grant', 'delete-webhook', 'EncryptCommand', { EncryptionContext: bound }],
    ['sealing bound to a purpose alone', 'create-webhook', 'EncryptCommand', { EncryptionContext: { purpose: 'delivery' } }],
  ])('refuses %s', (_, fn, command, input) => {
    expect(refusals(fn, { command, input })).toHaveLength(1);
  });

  it.each([
    ['the admission update', 'get-key', 'UpdateItemCommand', admissionLike],
    [
      'key management listing keys',
      'dashboard-list-keys',
      'QueryCommand',
      {
        IndexName: 'gsi1',
        KeyConditionExpression: '#p = :pk',
        ExpressionAttributeNames: { '#p': 'gsi1pk' },
        ExpressionAttributeValues: { ':pk': 'ORG#org-x#KEYS' },
      },
    ],
    ['the activity page naming the keys of its events (decision 141)', 'dashboard-list-activity', 'QueryCommand', KEY_LIST_QUERY],
    [
      'a writer reading the organization and deployment at once',
      'create-dag-sync',
      'BatchGetItemCommand',
      {
        RequestItems: {
          t: {
            Keys: [
              { pk: 'ORG#org-x', sk: 'ORG' },
              { pk: 'ORG#org-x', sk: 'DEP#1' },
            ],
          },
        },
      },
    ],
    [
      'key management giving back a key place',
      'dashboard-revoke-key',
      'UpdateCommand',
      { Key: { pk: 'ORG#org-x', sk: 'ORG' }, UpdateExpression: 'ADD key_count :minus', ExpressionAttributeValues: { ':minus': -1 } },
    ],
    ['the deliverer queueing a retry', 'deliver-webhooks', 'SendMessageCommand', {}],
    ['the creating function sealing a new secret', 'create-webhook', 'EncryptCommand', { EncryptionContext: bound }],
    [
      'the deliverer opening a secret sealed before records were bound',
      'deliver-webhooks',
      'DecryptCommand',
      { EncryptionContext: { purpose: 'delivery' } },
    ],
    ['the deliverer opening a bound secret', 'deliver-webhooks', 'DecryptCommand', { EncryptionContext: bound }],
  ])('allows %s', (_, fn, command, input) => {
    expect(refusals(fn, { command, input })).toEqual([]);
  });

  it("judges the request path's real requests, by the function that sent them", async () => {
    const { key } = await createKey();
    const before = judged.perFunction.get('get-key') ?? 0;
    expect((await call('GET', '/key', { key })).status).toBe(200);
    // Admission, and the usage entry.
    expect((judged.perFunction.get('get-key') ?? 0) - before).toBeGreaterThanOrEqual(2);
    expect(judged.refused).toEqual([]);
  });

  it('judges the local stand-ins at their ports, as the SQS and KMS requests they stand in for, and lets the call through', async () => {
    const done: string[] = [];
    const standIns = judgedStandIns({
      queue: { enqueue: async () => void done.push('enqueue') },
      sealer: { seal: async () => 'sealed', open: async () => 'opened' },
      signing: { read: async () => Buffer.alloc(32) },
    });
    const message: DeliveryMessage = { orgId: 'org-x', webhookId: 'wh_1', eventSequence: 1, attempt: 1 };
    const sealedFor = { purpose: 'delivery', orgId: 'org-x', recordId: 'wh_1' } as const;
    const before = judged.refused.length;
    await runAsFunction('deliver-webhooks', () => standIns.queue.enqueue(message, 0));
    expect(await runAsFunction('deliver-webhooks', () => standIns.sealer.open('v2:x', sealedFor))).toBe('opened');
    expect(judged.refused.length).toBe(before);
    await runAsFunction('list-events', () => standIns.queue.enqueue(message, 0));
    expect(await runAsFunction('deliver-webhooks', () => standIns.sealer.seal('secret', sealedFor))).toBe('sealed');
    // Taken out again: a refusal left in `judged` fails this file.
    const refused = judged.refused.splice(before);
    expect(refused).toEqual([expect.stringMatching(/^list-events: SendMessage /), expect.stringMatching(/^deliver-webhooks: Encrypt /)]);
    expect(done).toEqual(['enqueue', 'enqueue']);
  });
});
