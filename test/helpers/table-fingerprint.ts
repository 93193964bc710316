/**
 * A fingerprint of the items a test owns, to prove that refused requests changed
 * nothing. The table is shared by every test file of the run, so the items are chosen by
 * partition key or by the organization they name; and what a refused-but-recognised
 * request legitimately writes is left out: its usage entry (`USAGE#…`, decision 34), the failed-authentication counters
 * (`AUTHFAIL#…`), on the key's item the attributes admission counts and stamps
 * (`rate_*`, `last_used_at`), and on a deployment's health item the time of its last check
 * (`checked_at`: the health checker's rounds move it on their own, decision 48, and a test
 * slow enough to span a round would otherwise see a change no request made).
 */
import { createHash } from 'node:crypto';
import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { deploymentHealth, PARTITIONS } from '../../contract/table/entities.js';
import { ddb, tableName } from '../../functions/adapters/dynamo/client.js';

const ADMISSION_WRITES = /^(rate_|last_used_at$)/;
const isHealthItem = (item: Record<string, unknown>) =>
  typeof item.deployment_id === 'string' && item.sk === deploymentHealth.sk.build({ deployment_id: item.deployment_id });

/** Sorted keys at every level, so equal items always print the same. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value instanceof Set) return canonical([...value].sort());
  if (value && typeof value === 'object') {
    const entries = Object.entries(value).sort(([a], [b]) => (a < b ? -1 : 1));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'undefined';
}

export interface Fingerprint {
  hash: string;
  /** `pk sk` → the item as compared, for saying what changed. */
  items: Map<string, string>;
}

/**
 * The items a test owns: those whose partition key starts with one of `partitions`, and
 * those that name one of `orgs` as theirs (an API key's items live under the key's hash).
 */
export interface Owned {
  partitions: readonly string[];
  orgs?: readonly string[];
}

/**
 * The scan's filter for what `owned` names. The table is the whole run's, tens of thousands
 * of items by the time a late file scans it: the engine picks the few owned ones out, rather
 * than sending every item for the test to unmarshal and drop, twice for each request checked.
 */
function scanFilter({ partitions, orgs = [] }: Owned) {
  const values: Record<string, string> = {};
  const terms = [
    ...partitions.map((prefix, i) => {
      values[`:p${i}`] = prefix;
      return `begins_with(#pk, :p${i})`;
    }),
    ...orgs.map((org, i) => {
      values[`:o${i}`] = org;
      return `#org = :o${i}`;
    }),
  ];
  if (terms.length === 0) throw new Error('a fingerprint owns nothing: name its partitions');
  return {
    FilterExpression: terms.join(' OR '),
    ExpressionAttributeNames: { '#pk': 'pk', ...(orgs.length ? { '#org': 'org_id' } : {}) },
    ExpressionAttributeValues: values,
  };
}

/** Scans the table for the items `owned` names and fingerprints them. */
export async function tableFingerprint(owned: Owned): Promise<Fingerprint> {
  const items = new Map<string, string>();
  const filter = scanFilter(owned);
  let start: Record<string, unknown> | undefined;
  do {
    const page = await ddb.send(new ScanCommand({ TableName: tableName(), ExclusiveStartKey: start, ...filter }));
    for (const item of page.Items ?? []) {
      const pk = String(item.pk);
      if (pk.startsWith(PARTITIONS.usage) || pk.startsWith(PARTITIONS.authFailures)) continue;
      const kept = Object.fromEntries(
        Object.entries(item).filter(
          ([name]) => !(pk.startsWith(PARTITIONS.apiKey) && ADMISSION_WRITES.test(name)) && !(name === 'checked_at' && isHealthItem(item)),
        ),
      );
      items.set(`${pk} ${String(item.sk)}`, canonical(kept));
    }
    start = page.LastEvaluatedKey;
  } while (start);
  const hash = createHash('sha256');
  for (const id of [...items.keys()].sort()) hash.update(`${id}\n${items.get(id)}\n`);
  return { hash: hash.digest('hex'), items };
}

/** What differs between two fingerprints: items added, removed or changed (empty when equal). */
export function fingerprintChanges(before: Fingerprint, after: Fingerprint): string[] {
  const out: string[] = [];
  for (const [id, item] of after.items) {
    if (!before.items.has(id)) out.push(`added ${id}: ${item}`);
    else if (before.items.get(id) !== item) out.push(`changed ${id}: ${before.items.get(id)} -> ${item}`);
  }
  for (const id of before.items.keys()) if (!after.items.has(id)) out.push(`removed ${id}`);
  return out;
}
