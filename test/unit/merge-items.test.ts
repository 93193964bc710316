/**
 * Decision 300: a group commit folds several writes of one item into one Update, only
 * where that is exact; anything else stays a write of its own.
 */
import { mergeUpdates } from '../../functions/adapters/dynamo/merge-items.js';
import { updateParts, withCondition } from '../../functions/adapters/dynamo/transact.js';

const key = { pk: 'ORG#o', sk: 'DEP#d' };
const update = (parts: object) => ({ Update: { TableName: 't', Key: key, ...parts } as never });

describe('mergeUpdates', () => {
  it('keeps the first condition, the later SET winning, ADDed numbers summed and sets united', () => {
    const first = update({
      ...withCondition(updateParts({ op_count: 3, last: 'a' }), '#oc = :count', { '#oc': 'op_count' }, { ':count': 2 }),
    });
    const later = update({
      ...withCondition(updateParts({ op_count: 4, other: 1 }), '#oc = :count', { '#oc': 'op_count' }, { ':count': 3 }),
    });
    const merged = mergeUpdates(first, later)!.Update!;
    expect(merged.ConditionExpression).toBe('#oc = :count');
    expect(merged.ExpressionAttributeValues![':count']).toBe(2);
    const names = merged.ExpressionAttributeNames!;
    const values = merged.ExpressionAttributeValues!;
    const setOf = Object.fromEntries(
      [...merged.UpdateExpression!.matchAll(/(#g\d+) = (:g\d+)/g)].map(([, n, v]) => [names[n!], values[v!]]),
    );
    expect(setOf).toEqual({ op_count: 4, last: 'a', other: 1 });

    const adds = mergeUpdates(
      update({
        UpdateExpression: 'ADD #n0 :n0, #s :e',
        ExpressionAttributeNames: { '#n0': 'n_queued', '#s': 'in_flight' },
        ExpressionAttributeValues: { ':n0': 1, ':e': new Set(['a']) },
      }),
      update({
        UpdateExpression: 'ADD #n0 :n0, #s :e',
        ExpressionAttributeNames: { '#n0': 'n_queued', '#s': 'in_flight' },
        ExpressionAttributeValues: { ':n0': 2, ':e': new Set(['b']) },
      }),
    )!.Update!;
    expect(adds.UpdateExpression).toBe('ADD #g0 :g0, #g1 :g1');
    expect(adds.ExpressionAttributeValues).toEqual({ ':g0': 3, ':g1': new Set(['a', 'b']) });
  });

  it('refuses what is not exact: a later condition with no earlier one, ADD then DELETE of one set, a Put, another expression shape', () => {
    const plain = update(updateParts({ a: 1 }));
    const guarded = update(withCondition(updateParts({ a: 2 }), 'attribute_exists(pk)'));
    expect(mergeUpdates(plain, guarded)).toBeUndefined();
    const add = update({
      UpdateExpression: 'ADD #s :e',
      ExpressionAttributeNames: { '#s': 'in_flight' },
      ExpressionAttributeValues: { ':e': new Set(['a']) },
    });
    const del = update({
      UpdateExpression: 'DELETE #s :e',
      ExpressionAttributeNames: { '#s': 'in_flight' },
      ExpressionAttributeValues: { ':e': new Set(['b']) },
    });
    expect(mergeUpdates(add, del)).toBeUndefined();
    expect(mergeUpdates({ Put: { TableName: 't', Item: key } }, plain)).toBeUndefined();
    const computed = update({
      UpdateExpression: 'SET #a = #a + :one',
      ExpressionAttributeNames: { '#a': 'a' },
      ExpressionAttributeValues: { ':one': 1 },
    });
    expect(mergeUpdates(plain, computed)).toBeUndefined();
  });
});
