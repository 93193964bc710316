/**
 * The fingerprint the isolation and generated-input tests rest on (test/helpers/table-fingerprint.ts):
 * it must see every change to what a test owns, in the owned partitions and in an item elsewhere
 * that names the organization, or their "changes nothing" would hold whatever happened.
 */
import { DeleteCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { ddb, tableName } from '../../functions/adapters/dynamo/client.js';
import { newOrgId } from '../helpers/fixtures.js';
import { fingerprintChanges, tableFingerprint } from '../helpers/table-fingerprint.js';

const put = (Item: Record<string, unknown>) => ddb.send(new PutCommand({ TableName: tableName(), Item }));

it('sees an owned item added, changed or removed, and nothing of anyone else', async () => {
  const org = newOrgId();
  const owned = { partitions: [`ORG#${org}`], orgs: [org] };
  const mine = { pk: `ORG#${org}`, sk: 'PROBE#1', value: 1 };
  const namedMine = { pk: `PROBE#${newOrgId()}`, sk: 'PROBE', org_id: org };
  await put(mine);
  const before = await tableFingerprint(owned);
  expect(before.items.size).toBe(1);

  await put({ pk: `ORG#${newOrgId()}`, sk: 'PROBE#1', value: 1 });
  await put({ pk: `PROBE#${newOrgId()}`, sk: 'PROBE', org_id: newOrgId() });
  expect(fingerprintChanges(before, await tableFingerprint(owned))).toEqual([]);

  await put({ ...mine, value: 2 });
  await put(namedMine);
  await put({ pk: `ORG#${org}`, sk: 'PROBE#2' });
  const after = await tableFingerprint(owned);
  const what = fingerprintChanges(before, after).map((change) => change.split(':')[0]);
  expect(what.sort()).toEqual([`added ORG#${org} PROBE#2`, `added ${namedMine.pk} PROBE`, `changed ORG#${org} PROBE#1`].sort());
  await ddb.send(new DeleteCommand({ TableName: tableName(), Key: { pk: mine.pk, sk: mine.sk } }));
  expect(fingerprintChanges(before, await tableFingerprint(owned))).toContain(`removed ORG#${org} PROBE#1`);
});
