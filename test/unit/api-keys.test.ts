/**
 * API keys' pure rules (functions/core/api-keys.ts): the checksum that refuses a mistyped
 * or guessed key without a read, over generated edits (fast-check); refusal order
 * (decision 28); rotation (decision 47); scopes; what a summary shows. test/unit/core.test.ts
 * has the key's form; test/integration/auth.test.ts the same rules through HTTP.
 */
import fc from 'fast-check';
import {
  type ApiKeyRecord,
  checkKeyName,
  checkScope,
  generateKey,
  generateLegacyKey,
  hashKey,
  KEY_PREFIX,
  keyForm,
  keyRefusal,
  keySummary,
  planRotation,
} from '../../functions/core/api-keys.js';

const SECRET = Buffer.alloc(32, 3);
const NOW = new Date('2026-11-22T10:00:00.000Z');
const signed = generateKey({ orgId: 'org-a', name: 'ci', now: NOW }, SECRET);
const legacy = generateLegacyKey({ orgId: 'org-a', name: 'old', now: NOW });
const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** One character of the token replaced by another base62 character. */
const typo = (key: string) =>
  fc
    .record({ at: fc.integer({ min: KEY_PREFIX.length, max: key.length - 1 }), char: fc.constantFrom(...BASE62) })
    .filter(({ at, char }) => key[at] !== char)
    .map(({ at, char }) => key.slice(0, at) + char + key.slice(at + 1));

describe('the checksum', () => {
  it('refuses every one-character change of a signed key, without a read', () => {
    expect(keyForm(signed.key, SECRET)).toBe('signed');
    fc.assert(fc.property(typo(signed.key), (k) => expect(keyForm(k, SECRET)).toBeUndefined()));
  });

  it('refuses every one-character change of a legacy key (CRC32 catches any single substitution)', () => {
    expect(keyForm(legacy.key, SECRET)).toBe('legacy');
    fc.assert(fc.property(typo(legacy.key), (k) => expect(keyForm(k, SECRET)).toBeUndefined()));
  });

  it('refuses two adjacent characters swapped', () => {
    fc.assert(
      fc.property(fc.integer({ min: KEY_PREFIX.length, max: signed.key.length - 2 }), (i) => {
        const k = signed.key;
        fc.pre(k[i] !== k[i + 1]);
        const swapped = k.slice(0, i) + k[i + 1] + k[i] + k.slice(i + 2);
        expect(keyForm(swapped, SECRET)).toBeUndefined();
      }),
    );
  });

  it('refuses random tokens of either length: a guess does not pass', () => {
    const token = (n: number) => fc.string({ unit: fc.constantFrom(...BASE62), minLength: n, maxLength: n });
    fc.assert(
      fc.property(fc.oneof(token(49), token(51)), (t) => {
        expect(keyForm(KEY_PREFIX + t, SECRET)).toBeUndefined();
      }),
    );
  });

  it('refuses anything but the prefix and 49 or 51 base62 characters', () => {
    for (const k of [signed.key.slice(0, -1), `${signed.key}0`, signed.key.replace(KEY_PREFIX, ''), `${signed.key.slice(0, -1)}-`, '']) {
      expect(keyForm(k, SECRET)).toBeUndefined();
    }
  });
});

const record = (over: Partial<ApiKeyRecord> = {}): ApiKeyRecord => ({ ...signed.record, ...over });

describe('keyRefusal (decision 28)', () => {
  it('refuses a revoked key first, then an expired one from its expiry instant on', () => {
    expect(keyRefusal(record(), NOW)).toBeUndefined();
    const expiresAt = '2026-11-22T10:00:00.000Z';
    expect(keyRefusal(record({ expires_at: expiresAt }), new Date(NOW.getTime() - 1))).toBeUndefined();
    expect(keyRefusal(record({ expires_at: expiresAt }), NOW)?.code).toBe('API_KEY_EXPIRED');
    expect(keyRefusal(record({ expires_at: expiresAt, revoked_at: '2026-11-01T00:00:00.000Z' }), NOW)?.code).toBe('API_KEY_REVOKED');
  });
});

describe('planRotation (decision 47)', () => {
  it('makes a signed key of the same organization, name, scopes and expiry', () => {
    const old = record({ scopes: ['deployments:read'], expires_at: '2027-01-01T00:00:00.000Z' });
    const plan = planRotation(old, 3600, NOW, SECRET);
    expect(keyForm(plan.key, SECRET)).toBe('signed');
    expect(plan.record).toMatchObject({
      org_id: 'org-a',
      name: 'ci',
      scopes: ['deployments:read'],
      expires_at: '2027-01-01T00:00:00.000Z',
    });
    expect(plan.record.hash).toBe(hashKey(plan.key));
    expect(plan.record.id).not.toBe(old.id);
  });

  it('ends the old key at the earlier of its own expiry and the grace', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 604_800 }),
        fc.option(fc.integer({ min: 1, max: 10 * 86_400 }), { nil: null }),
        (grace, expiresIn) => {
          const expiresAt = expiresIn === null ? null : new Date(NOW.getTime() + expiresIn * 1000).toISOString();
          const { oldExpiresAt } = planRotation(record({ expires_at: expiresAt }), grace, NOW, SECRET);
          const graceEnd = NOW.getTime() + grace * 1000;
          expect(Date.parse(oldExpiresAt)).toBe(expiresAt === null ? graceEnd : Math.min(graceEnd, Date.parse(expiresAt)));
        },
      ),
    );
  });

  it('refuses a revoked or expired key with 409 API_KEY_NOT_ROTATABLE, saying why', () => {
    expect(() => planRotation(record({ revoked_at: NOW.toISOString() }), 60, NOW, SECRET)).toThrow(
      expect.objectContaining({ code: 'API_KEY_NOT_ROTATABLE', status: 409, message: expect.stringContaining('revoked') }),
    );
    expect(() => planRotation(record({ expires_at: NOW.toISOString() }), 60, NOW, SECRET)).toThrow(
      expect.objectContaining({ code: 'API_KEY_NOT_ROTATABLE', message: expect.stringContaining('expired') }),
    );
  });
});

describe('scopes, names and summaries', () => {
  it('allow a key holding any of the scopes, and name the first when it holds none', () => {
    expect(() => checkScope(['deployments:read'], ['deployments:write', 'deployments:read'])).not.toThrow();
    expect(() => checkScope(['deployments:read'], ['deployments:write', 'org:read'])).toThrow(
      expect.objectContaining({ code: 'INSUFFICIENT_SCOPE', status: 403, message: expect.stringContaining('deployments:write') }),
    );
  });

  it('take a key name of any printable text, and refuse control characters and bidirectional overrides', () => {
    for (const ok of ['ci', 'Déploiement nocturne', '日本語', 'a b-c_d.e']) expect(checkKeyName(ok)).toBe(ok);
    for (const bad of ['a\nb', 'a\u0007', 'x\u202ey', '\u2066z', '\u200fq', 'tab\there'])
      expect(() => checkKeyName(bad)).toThrow(expect.objectContaining({ code: 'INVALID_REQUEST' }));
  });

  it('show a key without its hash, and with only its hint', () => {
    const summary = keySummary(record());
    expect(Object.keys(summary).sort()).toEqual(['created_at', 'expires_at', 'hint', 'id', 'last_used_at', 'name', 'revoked_at', 'scopes']);
    expect(JSON.stringify(summary)).not.toContain(signed.record.hash);
    expect(JSON.stringify(summary)).not.toContain(signed.key.slice(KEY_PREFIX.length, -4));
  });
});
