/**
 * Folding several writes' transaction items into one transaction (decision 300). A
 * transaction may touch an item once, so two writes of the same item merge into one
 * Update when that is exact: SET, REMOVE, ADD and DELETE of distinct attributes, numbers
 * ADDed together, sets united. Anything else (a Put or Delete of an item already written,
 * an update expression of another shape) cannot merge, and the caller commits that write
 * in a later transaction.
 */
import type { TransactItem } from './transact.js';

type UpdateItem = NonNullable<TransactItem['Update']>;

interface Parsed {
  set: Map<string, unknown>;
  remove: Set<string>;
  add: Map<string, unknown>;
  del: Map<string, unknown>;
}

const KEYWORDS = /\b(SET|REMOVE|ADD|DELETE)\b/;

/** The actions of an update expression of the shapes this code writes, by attribute name; undefined for any other shape. */
function parse(u: UpdateItem): Parsed | undefined {
  const names = u.ExpressionAttributeNames ?? {};
  const values = u.ExpressionAttributeValues ?? {};
  const out: Parsed = { set: new Map(), remove: new Set(), add: new Map(), del: new Map() };
  const seen = new Set<string>();
  const attr = (token: string) => (token.startsWith('#') ? names[token] : /^[A-Za-z_]\w*$/.test(token) ? token : undefined);
  const value = (token: string) => (token in values ? { v: values[token] } : undefined);
  const parts = (u.UpdateExpression ?? '').split(KEYWORDS);
  if (parts[0]?.trim()) return undefined;
  for (let i = 1; i < parts.length; i += 2) {
    const verb = parts[i] as 'SET' | 'REMOVE' | 'ADD' | 'DELETE';
    for (const action of parts[i + 1]!.split(',').map((a) => a.trim())) {
      const m =
        verb === 'SET' ? /^(\S+)\s*=\s*(:\w+)$/.exec(action) : verb === 'REMOVE' ? /^(\S+)$/.exec(action) : /^(\S+)\s+(:\w+)$/.exec(action);
      if (!m) return undefined;
      const name = attr(m[1]!);
      if (name === undefined || seen.has(name)) return undefined;
      seen.add(name);
      if (verb === 'REMOVE') {
        out.remove.add(name);
        continue;
      }
      const v = value(m[2]!);
      if (!v) return undefined;
      (verb === 'SET' ? out.set : verb === 'ADD' ? out.add : out.del).set(name, v.v);
    }
  }
  return out;
}

/** a then b as one ADD, when both are numbers or both sets. */
function added(a: unknown, b: unknown): unknown {
  if (typeof a === 'number' && typeof b === 'number') return a + b;
  if (a instanceof Set && b instanceof Set) return new Set([...a, ...b]);
  return undefined;
}

/** `later` applied after `first`, as one set of actions; undefined when that is not exact. */
function fold(first: Parsed, later: Parsed): Parsed | undefined {
  const r: Parsed = { set: new Map(first.set), remove: new Set(first.remove), add: new Map(first.add), del: new Map(first.del) };
  const untouchedBySetOps = (name: string) => !r.add.has(name) && !r.del.has(name);
  for (const [name, v] of later.set) {
    if (!untouchedBySetOps(name)) return undefined;
    r.remove.delete(name);
    r.set.set(name, v);
  }
  for (const name of later.remove) {
    if (!untouchedBySetOps(name)) return undefined;
    r.set.delete(name);
    r.remove.add(name);
  }
  for (const [name, v] of later.add) {
    if (r.remove.has(name) || r.del.has(name)) return undefined;
    const base = r.set.has(name) ? r.set : r.add.has(name) ? r.add : undefined;
    if (!base) {
      r.add.set(name, v);
      continue;
    }
    const sum = added(base.get(name), v);
    if (sum === undefined) return undefined;
    base.set(name, sum);
  }
  for (const [name, v] of later.del) {
    if (r.remove.has(name) || r.add.has(name) || !(v instanceof Set)) return undefined;
    const current = r.set.get(name) ?? r.del.get(name);
    if (r.set.has(name)) {
      if (!(current instanceof Set)) return undefined;
      r.set.set(name, new Set([...current].filter((e) => !v.has(e))));
    } else r.del.set(name, current instanceof Set ? new Set([...current, ...v]) : v);
  }
  return r;
}

/** The placeholders a condition uses, kept with their names and values. */
function conditionPlaceholders(u: UpdateItem) {
  const used = new Set((u.ConditionExpression ?? '').match(/[#:]\w+/g) ?? []);
  const pick = (m: Record<string, unknown> | undefined) => Object.fromEntries(Object.entries(m ?? {}).filter(([k]) => used.has(k)));
  return { names: pick(u.ExpressionAttributeNames) as Record<string, string>, values: pick(u.ExpressionAttributeValues) };
}

function render(p: Parsed, keep: UpdateItem): UpdateItem {
  const { names, values } = conditionPlaceholders(keep);
  const clauses: string[] = [];
  let n = 0;
  const clause = (verb: string, entries: [string, unknown][], withValue: boolean) => {
    if (entries.length === 0) return;
    const actions = entries.map(([name, v]) => {
      const i = n++;
      names[`#g${i}`] = name;
      if (!withValue) return `#g${i}`;
      values[`:g${i}`] = v;
      return verb === 'SET' ? `#g${i} = :g${i}` : `#g${i} :g${i}`;
    });
    clauses.push(`${verb} ${actions.join(', ')}`);
  };
  clause('SET', [...p.set], true);
  clause(
    'REMOVE',
    [...p.remove].map((name) => [name, undefined]),
    false,
  );
  clause('ADD', [...p.add], true);
  clause('DELETE', [...p.del], true);
  const { ExpressionAttributeNames: _n, ExpressionAttributeValues: _v, UpdateExpression: _u, ...rest } = keep;
  return {
    ...rest,
    UpdateExpression: clauses.join(' '),
    ExpressionAttributeNames: names,
    ...(Object.keys(values).length ? { ExpressionAttributeValues: values } : {}),
  };
}

/**
 * One Update doing `first` and then `later` to the same item, or undefined. The first
 * write's condition guards both: the later write was built from the item as the first
 * leaves it, so it holds whenever the first's does. A later condition with no earlier
 * one to imply it cannot be dropped, so that pair does not merge.
 */
export function mergeUpdates(first: TransactItem, later: TransactItem): TransactItem | undefined {
  if (!first.Update || !later.Update) return undefined;
  if (later.Update.ConditionExpression && !first.Update.ConditionExpression) return undefined;
  const a = parse(first.Update);
  const b = parse(later.Update);
  const folded = a && b && fold(a, b);
  return folded && { Update: render(folded, first.Update) };
}

/** An item's table and key, as a string: two writes of one item have the same. */
export function itemKey(item: TransactItem): string {
  const op = item.Put ?? item.Update ?? item.Delete ?? item.ConditionCheck;
  const key = item.Put ? { pk: item.Put.Item?.pk, sk: item.Put.Item?.sk } : (op as { Key?: Record<string, unknown> }).Key;
  return `${op?.TableName}|${key?.pk}|${key?.sk}`;
}
