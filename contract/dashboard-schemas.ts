/**
 * What crosses the dashboard's own API (/dashboard/api): its inputs are validated with
 * these schemas and the web app is typed by them (type imports only, so no zod ships to
 * the browser). Each is built through contract/schemas.ts's `schema`, the call marked pure,
 * so a function bundles and builds only the ones it uses (decision 201).
 */
import * as z from 'zod/mini';
import { DashboardRole } from './dashboard-users.js';
import { KEY_NAME_PATTERN, KEY_NAME_RULE, NAME_MAX_LENGTH, PAGE_SIZE_DEFAULT, PAGE_SIZE_MAX, ROTATION_GRACE } from './limits.js';
import { Event, Pagination, queryInt, Scope, schema } from './schemas.js';
import { SCOPES } from './vocabulary.js';

const Timestamp = /* @__PURE__ */ schema(() => z.string().check(z.describe('ISO 8601 UTC timestamp with milliseconds')));

export const KeyIdParams = /* @__PURE__ */ schema(() => z.object({ key_id: z.string() }));

/** A new key: a label, the scopes it is limited to (all when absent), and an optional expiry in the future. */
export const CreateKeyBody = /* @__PURE__ */ schema(() =>
  z.strictObject({
    name: z.string().check(z.trim(), z.minLength(1), z.maxLength(NAME_MAX_LENGTH), z.regex(KEY_NAME_PATTERN, KEY_NAME_RULE)),
    scopes: z.optional(
      z.array(Scope).check(
        z.minLength(1),
        z.maxLength(SCOPES.length),
        z.refine((list) => new Set(list).size === list.length, 'must not repeat a scope'),
      ),
    ),
    expires_at: z.optional(
      z.nullable(
        z.pipe(
          z.iso.datetime({ offset: true }),
          z.transform((s: string) => new Date(s).toISOString()),
        ),
      ),
    ),
  }),
);
export type CreateKeyBody = z.infer<typeof CreateKeyBody>;

/** A key as the dashboard shows it: never the key, never its hash. */
export const KeySummary = /* @__PURE__ */ schema(() =>
  z.object({
    id: z.string(),
    name: z.string(),
    scopes: z.array(Scope),
    hint: z.string(),
    created_at: Timestamp,
    expires_at: z.nullable(Timestamp),
    revoked_at: z.nullable(Timestamp),
    last_used_at: z.nullable(Timestamp),
  }),
);
export type KeySummary = z.infer<typeof KeySummary>;

/** The answer to a creation: the only time the key itself is shown. */
export const CreatedKey = /* @__PURE__ */ schema(() => z.extend(KeySummary, { key: z.string() }));
export type CreatedKey = z.infer<typeof CreatedKey>;

/** How long the old key keeps working after a rotation (seconds; a day unless told; decision 47). */
export const RotateKeyBody = /* @__PURE__ */ schema(() =>
  z.strictObject({
    grace_seconds: z.optional(z.int().check(z.gte(ROTATION_GRACE.min), z.lte(ROTATION_GRACE.max))),
  }),
);
export type RotateKeyBody = z.infer<typeof RotateKeyBody>;

/** The answer to a rotation: the new key, shown this once, and the key it replaces. */
export const RotatedKey = /* @__PURE__ */ schema(() => z.extend(CreatedKey, { rotated_from: z.string() }));
export type RotatedKey = z.infer<typeof RotatedKey>;

/**
 * The usage log is read newest first, a page at a time from an opaque cursor (it can
 * hold 90 days of requests, so no page numbers and no total), optionally only the
 * entries of one status code.
 */
export const KeyUsageQuery = /* @__PURE__ */ schema(() =>
  z.object({
    status: z.optional(z.pipe(z.string().check(z.regex(/^[1-5]\d\d$/, 'must be an HTTP status code')), z.transform(Number))),
    per_page: queryInt(1, PAGE_SIZE_MAX, PAGE_SIZE_DEFAULT),
    cursor: z.optional(z.string().check(z.maxLength(200))),
  }),
);
export type KeyUsageQuery = z.infer<typeof KeyUsageQuery>;

export const UsageEntry = /* @__PURE__ */ schema(() =>
  z.object({
    at: Timestamp,
    method: z.string(),
    route: z.string(),
    /** The path the request named (the route template for entries logged before paths were kept). */
    path: z.string(),
    status: z.int(),
    /** The request's source address; null for entries logged before addresses were kept. */
    client_address: z.nullable(z.string()),
    /** From arrival to answer; null while unknown (an entry being settled, or logged before durations were kept). */
    duration_ms: z.nullable(z.number()),
    request_id: z.string(),
    /** The request used a deprecated feature (decision 44): present, and true, only then. */
    deprecated: z.optional(z.literal(true)),
  }),
);
export type UsageEntry = z.infer<typeof UsageEntry>;

export const UsagePage = /* @__PURE__ */ schema(() => z.object({ items: z.array(UsageEntry), next_cursor: z.nullable(z.string()) }));
export type UsagePage = z.infer<typeof UsagePage>;

export const Me = /* @__PURE__ */ schema(() => z.object({ email: z.string(), org_id: z.string(), role: DashboardRole }));
export type Me = z.infer<typeof Me>;

/**
 * An event of the activity page (decision 141): the event as GET /api/v1/events shows it,
 * and the name its actor goes by here: a key's name, the signed-in user's own email, or
 * null (the page shows the id, or "workflow" for the system).
 */
export const ActivityEntry = /* @__PURE__ */ schema(() => z.extend(Event, { actor_name: z.nullable(z.string()) }));
export type ActivityEntry = z.infer<typeof ActivityEntry>;

export const ActivityPage = /* @__PURE__ */ schema(() => z.object({ items: z.array(ActivityEntry), pagination: Pagination }));
export type ActivityPage = z.infer<typeof ActivityPage>;
