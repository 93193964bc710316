/**
 * The group commit (decision 300): a turn of an organization's line (org-lock.ts) gathers
 * the waiting writes of one key into one transaction, each built from the state the one
 * before it leaves, so one organization's writes cost one transaction per turn and their
 * numbers stay dense and in the order they queued. Only the functions whose writes opt in
 * (`gatherAs`) bundle this module and merge-items.ts.
 */

import { deploymentKey, orgKey } from '../../../contract/table/entities.js';
import type { DeploymentRecord } from '../../core/deployments.js';
import { toDeployment } from './deployment-reads.js';
import { itemKey, mergeUpdates } from './merge-items.js';
import {
  alone,
  batchGet,
  type Gatherer,
  type Item,
  type OrgSnapshot,
  orgUpdateFrom,
  orgWriteOf,
  readOrg,
  remember,
  takeRemembered,
  type Waiting,
} from './org-lock.js';
import { type Gathered, gathering, type TransactItem, transact } from './transact.js';

/** Writes of one key, gathered: give one key to one function's writes (WriteOptions.gather). */
export const gatherAs = (key: string): Gatherer => ({ key, together });

/** One transaction holds at most 100 items (DynamoDB's limit) and 4 MB; a group stays well inside both. */
const GROUP_ITEMS = 100;
const GROUP_BYTES = 2_000_000;

/**
 * Attempts gathered into one transaction, each from what the previous leaves. One that
 * fails while gathered, or makes no write, is run alone after the group commits (its
 * outcome may depend on writes that were not yet committed). One whose items cannot
 * join the group (the transaction's limits, an item written in a way that does not
 * merge) and those after it wait for the next turn, which this returns. If the group's
 * transaction is refused, each attempt runs alone, as it would have without the group.
 */
async function together(orgId: string, turn: Waiting[]): Promise<Waiting[]> {
  for (const w of turn) w.known = undefined;
  const start = takeRemembered(orgId);
  const needed = [...new Set(turn.flatMap((w) => (w.deploymentId === undefined ? [] : [w.deploymentId])))];
  let read: ReadItems;
  try {
    // The group's read and commit run in its first write's context: all its writes share the key, so the same function's.
    read = await turn[0]!.scope.runInAsyncScope(() =>
      readItems(orgId, start ? needed.filter((id) => id !== start.deployment?.id) : needed, !start),
    );
  } catch (e) {
    for (const w of turn) w.done({ error: e });
    return [];
  }
  let org = start?.org ?? read.org;
  const deployments = new Map(read.deployments.map((d) => [d.id, d]));
  if (start?.deployment) deployments.set(start.deployment.id, start.deployment);
  /** Deployments written by the group without the write saying what it left: read afresh in a later turn. */
  const stale = new Set<string>();
  const items = new Map<string, [string, TransactItem]>();
  let orgWrite: { first: OrgSnapshot; last: OrgSnapshot; set: Item } | undefined;
  let bytes = 0;
  let lastDeployment: DeploymentRecord | undefined;
  const members: { w: Waiting; value: unknown }[] = [];
  const later: Waiting[] = [];
  let cut: Waiting[] = [];
  for (let i = 0; i < turn.length; i++) {
    const w = turn[i]!;
    if (w.deploymentId !== undefined && stale.has(w.deploymentId)) {
      cut = turn.slice(i);
      break;
    }
    const gathered: Gathered = {};
    let value: unknown;
    try {
      const state = { org, deployment: w.deploymentId ? deployments.get(w.deploymentId) : undefined };
      value = await w.scope.runInAsyncScope(() => gathering.run(gathered, () => w.attempt(state)));
    } catch {
      later.push(w);
      continue;
    }
    if (!gathered.items || !gathered.after) {
      later.push(w);
      continue;
    }
    const merged = join(i, gathered.items);
    if (!merged) {
      // The first of a turn always goes ahead, alone if its items fill a transaction.
      if (members.length === 0) {
        later.push(w);
        continue;
      }
      cut = turn.slice(i);
      break;
    }
    ({ orgWrite, bytes } = merged);
    for (const [key, entry] of merged.items) items.set(key, entry);
    org = gathered.after!.org;
    const after = gathered.after!.deployment as DeploymentRecord | undefined;
    for (const id of merged.deploymentsWritten) if (id !== after?.id) stale.add(id);
    if (after) {
      deployments.set(after.id, after);
      lastDeployment = after;
    }
    members.push({ w, value });
  }
  if (members.length > 0 && orgWrite) {
    try {
      const group = { org: orgUpdateFrom(orgId, orgWrite.first, orgWrite.last, orgWrite.set), ...Object.fromEntries(items.values()) };
      await turn[0]!.scope.runInAsyncScope(() => transact(group));
      remember(orgId, org, lastDeployment);
      for (const { w, value } of members) w.done({ value });
    } catch {
      // Whatever refused the group, each attempt meets it alone, with its own handling of it.
      for (const { w } of members) await alone(orgId, w);
    }
  }
  for (const w of later) await alone(orgId, w);
  return cut;

  /** Folds one attempt's items into the group's, or undefined when they do not fit. */
  function join(i: number, own: [string, TransactItem][]) {
    const next = new Map<string, [string, TransactItem]>();
    let ownOrg: typeof orgWrite;
    const written: string[] = [];
    let size = bytes;
    for (const [name, item] of own) {
      const org = orgWriteOf(item);
      if (org) {
        ownOrg = orgWrite
          ? { first: orgWrite.first, last: org.snap, set: { ...orgWrite.set, ...org.set } }
          : { first: org.snap, last: org.snap, set: org.set };
        continue;
      }
      const key = itemKey(item);
      const deploymentId = deploymentIdOfKey(orgId, key);
      if (deploymentId) written.push(deploymentId);
      const earlier = next.get(key) ?? items.get(key);
      const combined = earlier ? mergeUpdates(earlier[1], item) : item;
      if (!combined) return undefined;
      size += JSON.stringify(item, (_, v) => (v instanceof Set ? [...v] : v)).length;
      next.set(key, [earlier ? earlier[0] : `${i}:${name}`, combined]);
    }
    if (!ownOrg || items.size + [...next.keys()].filter((k) => !items.has(k)).length + 1 > GROUP_ITEMS || size > GROUP_BYTES)
      return undefined;
    return { items: next, orgWrite: ownOrg, bytes: size, deploymentsWritten: written };
  }
}

/** Items of a group's first read: the organization (unless this process knows it) and the deployments its writes are on. */
interface ReadItems {
  org: Item;
  deployments: DeploymentRecord[];
}

async function readItems(orgId: string, deploymentIds: string[], withOrg: boolean): Promise<ReadItems> {
  // Writes on no deployment (a workflow step's) read the organization alone: a GetItem, as their grants say.
  if (deploymentIds.length === 0) return { org: withOrg ? await readOrg(orgId) : {}, deployments: [] };
  const keys = [...(withOrg ? [orgKey(orgId)] : []), ...deploymentIds.map((id) => deploymentKey(orgId, id))];
  const found = await batchGet(keys);
  return {
    org: found.find((item) => item.sk === orgKey(orgId).sk) ?? {},
    deployments: found.filter((item) => item.sk !== orgKey(orgId).sk).map(toDeployment),
  };
}

/** The deployment an item key belongs to, when it is a deployment item of this organization. */
function deploymentIdOfKey(orgId: string, key: string): string | undefined {
  const [, pk, sk] = key.split('|');
  const probe = deploymentKey(orgId, '\u0000');
  const [prefix] = probe.sk.split('\u0000');
  return pk === probe.pk && sk?.startsWith(prefix!) ? sk.slice(prefix!.length) : undefined;
}
