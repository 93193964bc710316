/**
 * The attributes some writes may name, one list per grant (decision 214): the adapter
 * that writes names only these (its expressions are built from them), and the stack
 * grants only these (IAM `dynamodb:Attributes`, infra/aws/function-access.ts).
 * test/helpers/grant-check.ts replays every request the tests send against the grants.
 */

/** The organization item's key count (adapters/dynamo/api-key-store.ts): key management names these only. */
export const KEY_COUNT = 'key_count';
export const KEY_COUNT_ATTRIBUTES: readonly string[] = ['pk', 'sk', 'org_id', 'created_at', KEY_COUNT];

/** A key's per-minute request counters (adapters/dynamo/key-admission.ts), `rate_m00` to `rate_m59`. */
export const minuteAttr = (minute: number) => `rate_m${String(minute).padStart(2, '0')}`;
export const ALL_MINUTES = /* @__PURE__ */ Array.from({ length: 60 }, (_, m) => minuteAttr(m));

/**
 * Every attribute the admission names, in its updates and its conditions: the stack
 * lets the request path name only these on key items (IAM dynamodb:Attributes), so it
 * can count and stamp a key but never change its organization, scopes or hash.
 */
export const ADMISSION_ATTRIBUTES: readonly string[] = [
  'pk',
  'sk',
  'last_used_at',
  'rate_hour',
  'rate_n',
  ...ALL_MINUTES,
  'revoked_at',
  'expires_at',
];

/** The attributes the failed-authentication counter names: the stack allows these only on its items. */
export const AUTH_FAILURE_ATTRIBUTES: readonly string[] = ['pk', 'sk', 'n', 'ttl'];

/** What settling a usage entry may name (adapters/dynamo/usage-store.ts). */
export const USAGE_SETTLE_ATTRIBUTES = ['pk', 'sk', 'status', 'duration_ms'] as const;

/** Every attribute a wait slot's writes name (adapters/dynamo/wait-slots.ts). */
export const WAIT_SLOT_ATTRIBUTES = ['pk', 'sk', 'holder', 'lease_until', 'ttl'] as const;

/** A dashboard user's per-minute request counters (adapters/dynamo/user-admission.ts), `m00` to `m59`. */
export const userMinuteAttr = (minute: number) => `m${String(minute).padStart(2, '0')}`;

/** The attributes the dashboard's per-user count names (decision 232): the stack allows only these on the users' items. */
export const USER_RATE_ATTRIBUTES: readonly string[] = /* @__PURE__ */ [
  'pk',
  'sk',
  'n',
  'ttl',
  ...Array.from({ length: 60 }, (_, m) => userMinuteAttr(m)),
];
