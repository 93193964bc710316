/** The pure core: no DynamoDB, no HTTP. */

import { keyUsagePk, operation, orgKey } from '../../contract/table/entities.js';
import {
  generateKey,
  generateLegacyKey,
  hashKey,
  isLegacyKey,
  KEY_PREFIX,
  keyForm,
  ORG_ID_RULE,
  sameHash,
} from '../../functions/core/api-keys.js';

const SECRET = Buffer.alloc(32, 7);
const newKey = (orgId = 'o') => generateKey({ orgId, name: 'n', now: new Date() }, SECRET);

import { type DeploymentStatus, ListEventsQuery, ListOperationsQuery } from '../../contract/schemas.js';
import { DEPLOYMENT_STATUSES } from '../../contract/vocabulary.js';
import { canTransition, type DeploymentRecord, deploymentMoveAfter } from '../../functions/core/deployments.js';
import { PHASE_MESSAGES, PHASES } from '../../functions/core/operations.js';
import { listLinks, pageWindow } from '../../functions/core/pagination.js';
import { isWorkPhase } from '../../functions/core/platform.js';
import { secondsUntil, windowsAt } from '../../functions/core/rate-limits.js';

describe('phases', () => {
  it('every work phase is a platform job phase with a message; every final phase a message', () => {
    for (const { work, done } of Object.values(PHASES)) {
      expect(isWorkPhase(done)).toBe(false);
      for (const phase of work) {
        expect(isWorkPhase(phase)).toBe(true);
        expect(PHASE_MESSAGES[phase]).toEqual(expect.any(String));
      }
      expect(PHASE_MESSAGES[done]).toEqual(expect.any(String));
    }
  });
});

describe('deployment status machine (decision 10)', () => {
  const allowed: [DeploymentStatus, DeploymentStatus][] = [
    ['provisioning', 'ready'],
    ['provisioning', 'failed'],
    ['provisioning', 'destroying'],
    ['ready', 'destroying'],
    ['failed', 'destroying'],
    ['destroying', 'destroyed'],
    ['destroying', 'failed'],
  ];
  it.each(DEPLOYMENT_STATUSES.flatMap((from) => DEPLOYMENT_STATUSES.map((to) => [from, to] as const)))('%s → %s', (from, to) => {
    expect(canTransition(from, to)).toBe(allowed.some(([f, t]) => f === from && t === to));
  });

  it('moves a deployment after its operation only from the expected status', () => {
    const d = { status: 'provisioning' } as DeploymentRecord;
    expect(deploymentMoveAfter('succeeded', 'deployment.create', d)).toEqual({ record: d, to: 'ready' });
    expect(deploymentMoveAfter('failed', 'deployment.create', d)).toEqual({ record: d, to: 'failed' });
    expect(deploymentMoveAfter('succeeded', 'deployment.create', { ...d, status: 'destroying' })).toBeUndefined();
    expect(deploymentMoveAfter('failed', 'dag_sync.trigger', { ...d, status: 'ready' })).toBeUndefined();
    for (const outcome of ['succeeded', 'failed'] as const) {
      for (const type of Object.keys(PHASES) as (keyof typeof PHASES)[]) {
        for (const status of DEPLOYMENT_STATUSES) {
          const move = deploymentMoveAfter(outcome, type, { ...d, status });
          if (move) expect(canTransition(status, move.to)).toBe(true);
        }
      }
    }
  });
});

describe('API keys', () => {
  it('are svc_sk_live_ + 43 random base62 + 8 characters of HMAC, all different', () => {
    const keys = Array.from({ length: 200 }, () => newKey().key);
    for (const k of keys) {
      expect(k).toMatch(new RegExp(`^${KEY_PREFIX}[0-9A-Za-z]{51}$`));
      expect(keyForm(k, SECRET)).toBe('signed');
    }
    expect(new Set(keys).size).toBe(keys.length);
  });

  it('refuses a key with one character changed (checksum), without any lookup', () => {
    for (const { key } of [newKey(), generateLegacyKey({ orgId: 'o', name: 'n', now: new Date() })]) {
      const i = KEY_PREFIX.length + 10;
      const typo = key.slice(0, i) + (key[i] === 'a' ? 'b' : 'a') + key.slice(i + 1);
      expect(keyForm(typo, SECRET)).toBeUndefined();
      expect(keyForm(key.slice(0, -1), SECRET)).toBeUndefined();
      expect(keyForm(`svc_sk_test_${key.slice(KEY_PREFIX.length)}`, SECRET)).toBeUndefined();
    }
  });

  it('proves a signed key only under the secret it was signed with: a key signed under another is forged', () => {
    const { key } = newKey();
    expect(keyForm(key, Buffer.alloc(32, 8))).toBeUndefined();
    expect(isLegacyKey(key)).toBe(false);
  });

  it('still recognises keys of the earlier form (43 random + 6 CRC32 characters) as legacy, never as signed', () => {
    const { key } = generateLegacyKey({ orgId: 'o', name: 'n', now: new Date() });
    expect(key).toMatch(new RegExp(`^${KEY_PREFIX}[0-9A-Za-z]{49}$`));
    expect(keyForm(key, SECRET)).toBe('legacy');
    expect(isLegacyKey(key)).toBe(true);
  });

  it('stores the SHA-256 and a masked hint, never the key', () => {
    const { key, record } = newKey();
    expect(record.hash).toBe(hashKey(key));
    expect(record.hint).toBe(`svc_sk_live_…${key.slice(-4)}`);
    expect(JSON.stringify(record)).not.toContain(key.slice(KEY_PREFIX.length, KEY_PREFIX.length + 20));
  });

  it('compares hashes whole: one digit off, a prefix or a non-hex value is different, and none throws', () => {
    const hash = hashKey(newKey().key);
    const last = hash.at(-1) === '0' ? '1' : '0';
    expect(sameHash(hash, hash)).toBe(true);
    expect(sameHash(hash, hash.slice(0, -1) + last)).toBe(false);
    expect(sameHash(hash, hash.slice(0, 62))).toBe(false);
    expect(sameHash(hash, 'z'.repeat(64))).toBe(false);
  });
});

describe('paging over dense sequences', () => {
  it('maps page N, newest first, to one sequence range', () => {
    expect(pageWindow(5, { page: 1, per_page: 2 })).toEqual({ pagination: { page: 1, per_page: 2, total: 5, pages: 3 }, from: 4, to: 5 });
    expect(pageWindow(5, { page: 3, per_page: 2 })).toMatchObject({ from: 1, to: 1 });
    const past = pageWindow(5, { page: 4, per_page: 2 });
    expect(past.from > past.to).toBe(true);
    expect(pageWindow(0, { page: 1, per_page: 50 }).pagination).toEqual({ page: 1, per_page: 50, total: 0, pages: 0 });
    expect(pageWindow(100_000, { page: 2000, per_page: 50 })).toMatchObject({ from: 1, to: 50 });
  });

  it('builds list links that keep filters, with null next/prev at the ends', () => {
    const links = listLinks('/operations', { status: 'failed', type: undefined }, { page: 2, per_page: 10, total: 25, pages: 3 });
    expect(links).toEqual({
      self: '/api/v1/operations?status=failed&page=2&per_page=10',
      first: '/api/v1/operations?status=failed&page=1&per_page=10',
      last: '/api/v1/operations?status=failed&page=3&per_page=10',
      next: '/api/v1/operations?status=failed&page=3&per_page=10',
      prev: '/api/v1/operations?status=failed&page=1&per_page=10',
    });
    const empty = listLinks('/deployments', {}, { page: 1, per_page: 50, total: 0, pages: 0 });
    expect(empty).toMatchObject({ last: '/api/v1/deployments?page=1&per_page=50', next: null, prev: null });
  });
});

describe('clock windows', () => {
  it('gives the clock hour and minute an instant falls in, and whole seconds to their ends', () => {
    const t = new Date('2026-11-22T06:40:30.250Z');
    const w = windowsAt(t);
    expect(w.hourStart).toBe(Date.parse('2026-11-22T06:00:00Z') / 1000);
    expect(w.nextHour).toBe(Date.parse('2026-11-22T07:00:00Z') / 1000);
    expect(w.nextMinute).toBe(Date.parse('2026-11-22T06:41:00Z') / 1000);
    expect(w.minuteOfHour).toBe(40);
    expect(secondsUntil(t, w.nextMinute)).toBe(30);
    expect(secondsUntil(t, w.nextHour)).toBe(1170);
    expect(secondsUntil(new Date('2026-11-22T06:40:59.999Z'), w.nextMinute)).toBe(1);
  });
});

describe('ids that become table keys (security review)', () => {
  it.each(['acme', 'Org_1', 'a-b-c', 'x'.repeat(64)])('issues keys for the organization id %s', (orgId) => {
    expect(newKey(orgId).record.org_id).toBe(orgId);
  });

  it.each(['', 'a#KEYS', 'org one', '-lead', 'x'.repeat(65), 'ünï', 'a/b', 'a*'])(
    'refuses to issue a key for the organization id %j with 400 INVALID_REQUEST on org_id',
    (orgId) => {
      expect(() => newKey(orgId)).toThrow(
        expect.objectContaining({ code: 'INVALID_REQUEST', options: { details: [{ field: 'org_id', issue: ORG_ID_RULE }] } }),
      );
    },
  );

  it('never builds a partition key from an id holding "#", whoever calls the builder', () => {
    expect(() => orgKey('acme#KEYS')).toThrow(/contains "#"/);
    expect(() => operation.indexes.opsByResource.pk.build({ org_id: 'acme', resource_id: 'x#y' })).toThrow(/contains "#"/);
    expect(() => keyUsagePk('key_1#2')).toThrow(/contains "#"/);
    expect(orgKey('acme')).toEqual({ pk: 'ORG#acme', sk: 'ORG' });
  });

  it.each([
    ['3F2B8C1E-6D4A-4E7B-9A51-0C8D2E7F4A10', '3f2b8c1e-6d4a-4e7b-9a51-0c8d2e7f4a10'],
    ['dep_3f2b8c1e-6d4a-4e7b-9a51-0c8d2e7f4a10', '3f2b8c1e-6d4a-4e7b-9a51-0c8d2e7f4a10'],
  ])('reads the resource_id filter %s as %s', (raw, id) => {
    expect(ListOperationsQuery.parse({ resource_id: raw }).resource_id).toBe(id);
    expect(ListEventsQuery.parse({ resource_id: raw }).resource_id).toBe(id);
  });

  it.each(['nothing-here', 'x#KEYS', '3f2b8c1e', 'dep_', `op_${'0'.repeat(8)}`, '*'])('refuses the resource_id filter %j', (raw) => {
    expect(ListOperationsQuery.safeParse({ resource_id: raw }).success).toBe(false);
    expect(ListEventsQuery.safeParse({ resource_id: raw }).success).toBe(false);
  });

  it('takes an operation id as an events filter only', () => {
    const op = 'op_8a1d2c3b-4e5f-4a6b-8c7d-9e0f1a2b3c4d';
    expect(ListEventsQuery.parse({ resource_id: op }).resource_id).toBe(op);
    expect(ListOperationsQuery.safeParse({ resource_id: op }).success).toBe(false);
  });
});
