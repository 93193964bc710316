/**
 * The zod schemas of everything that crosses the API: request inputs are validated
 * with them, response records are typed by them, and the OpenAPI document is
 * generated from them. Each shape is declared here once.
 *
 * Written with zod/mini, the tree-shakable API (functions, not methods): every Lambda
 * function loads these, and classic zod would add about 75 KB and 20 ms of CPU to each
 * cold start (README, Performance). The OpenAPI document is built from classic copies
 * of them (docs/openapi-zod.ts).
 */

import { en } from 'zod/locales';
import * as z from 'zod/mini';

// The English messages classic zod installs by default (mini installs none): the `details` of a 400 quote them.
z.config(en());

/**
 * Builds a schema, and says that building it has no side effects: esbuild cannot tell
 * from zod's calls, and would keep every schema below in every function's bundle. So
 * wrapped, a bundle holds (and its cold start builds) only the schemas its function uses
 * (decision 201). esbuild honours the mark within this module only; other modules mark
 * their calls `@__PURE__` (routes.ts, dashboard-schemas.ts).
 */
/* @__NO_SIDE_EFFECTS__ */
export function schema<S>(build: () => S): S {
  return build();
}

import {
  CRON_MAX_LENGTH,
  ENV_NAME,
  MAX_ENV_VALUE_LENGTH,
  MAX_HIBERNATION_SCHEDULES,
  NAME_MAX_LENGTH,
  PAGE_SIZE_DEFAULT,
  PAGE_SIZE_MAX,
  TIME_ZONE_MAX_LENGTH,
  TIMESTAMP_PATTERN,
  WAIT_TIMEOUT_SECONDS,
  WEBHOOK_DESCRIPTION_MAX_LENGTH,
  WEBHOOK_URL_MAX_LENGTH,
} from './limits.js';
import {
  APP_TYPES,
  DEPLOYMENT_STATUSES,
  EVENT_TYPES,
  HEALTH_STATUSES,
  LOG_LEVELS,
  OPERATION_STATUSES,
  OPERATION_TYPES,
  PHASE_NAMES,
  SCOPES,
  SIZES,
  USER_ROLES,
} from './vocabulary.js';

// The lists are the vocabulary's (vocabulary.ts, decision 211); the schemas below are their zod forms.
export const Scope = schema(() => z.enum(SCOPES));
export type Scope = z.infer<typeof Scope>;

export const AppType = schema(() => z.enum(APP_TYPES));
export type AppType = z.infer<typeof AppType>;

export const DeploymentStatus = schema(() => z.enum(DEPLOYMENT_STATUSES));
export type DeploymentStatus = z.infer<typeof DeploymentStatus>;

export const OperationStatus = schema(() => z.enum(OPERATION_STATUSES));
export type OperationStatus = z.infer<typeof OperationStatus>;

export const OperationType = schema(() => z.enum(OPERATION_TYPES));
export type OperationType = z.infer<typeof OperationType>;

/** Decision 17's phases, of every operation type (vocabulary.ts declares them per type). */
export const Phase = schema(() => z.enum(PHASE_NAMES));
export type Phase = z.infer<typeof Phase>;

export const LogLevel = schema(() => z.enum(LOG_LEVELS));
export type LogLevel = z.infer<typeof LogLevel>;

export const EventType = schema(() => z.enum(EVENT_TYPES));
export type EventType = z.infer<typeof EventType>;

export const DEFAULT_ENVIRONMENT_ID = 'env_default';

const Timestamp = schema(() => z.string().check(z.describe('ISO 8601 UTC timestamp with milliseconds, e.g. 2026-11-22T06:40:00.000Z')));

// ---- requests ----------------------------------------------------------------

/**
 * A deployment's or app user's name: 1-64 of a few characters. The length is checked
 * first, with the same message and stopping there, so the document shows `maxLength` and a
 * too-long name still gets one problem (decision 160).
 */
/* @__NO_SIDE_EFFECTS__ */
function shortName() {
  const rule = 'must be 1-64 letters, digits, "-", "_" or ".", starting with a letter or digit';
  return [z.maxLength(NAME_MAX_LENGTH, { message: rule, abort: true }), z.regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/, rule)] as const;
}

export const DeploymentName = schema(() => z.string().check(...shortName()));

// ---- configuration (decisions 41-43) ----------------------------------------------

export const Size = schema(() => z.enum(SIZES));
/** A release such as `2.10.5`; which ones are supported is configuration (decision 41), so only the length is bounded here. */
const AppVersion = schema(() => z.string().check(z.maxLength(32)));
const EnvName = schema(() => z.string().check(z.regex(ENV_NAME, 'must match ^[A-Za-z_][A-Za-z0-9_]{0,127}$')));
const EnvEntryInput = schema(() =>
  z.strictObject({
    value: z.optional(z.string().check(z.maxLength(MAX_ENV_VALUE_LENGTH))).check(z.describe('Required for a new name.')),
    secret: z.optional(z.boolean()).check(z.describe('A secret value is never shown again (default false).')),
  }),
);

/** Decision 50: a five-field cron expression; its grammar is checked with the schedule (functions/core/hibernation-schedule.ts). */
const CronExpression = schema(() =>
  z
    .string()
    .check(z.maxLength(CRON_MAX_LENGTH), z.describe('minute hour day-of-month month day-of-week (0-6): numbers, *, ranges, lists, steps.')),
);
const HibernationSchedule = schema(() => z.strictObject({ hibernate: CronExpression, wake: CronExpression }));
const HibernationSchedules = schema(() =>
  z.array(HibernationSchedule).check(z.maxLength(MAX_HIBERNATION_SCHEDULES), z.describe('1 to 10 schedules; replaced whole by a patch.')),
);
const TimeZone = schema(() => z.string().check(z.maxLength(TIME_ZONE_MAX_LENGTH), z.describe('An IANA time zone name; default UTC.')));

/** `config.hibernation` at creation: null (no schedule) or the schedules and their time zone. */
const HibernationInput = schema(() => z.nullable(z.strictObject({ schedules: HibernationSchedules, time_zone: z.optional(TimeZone) })));

/** `config` at creation: any of its fields; the others take their defaults. */
export const ConfigInput = schema(() =>
  z.strictObject({
    app_version: z.optional(AppVersion).check(z.describe('A supported release of the app type; default the newest.')),
    size: z.optional(Size),
    env: z.optional(z.record(EnvName, EnvEntryInput)).check(z.describe('At most 50 entries.')),
    hibernation: z.optional(HibernationInput).check(z.describe('Hibernation schedules (decision 50); default null.')),
  }),
);

/** `config` in a merge patch (RFC 7396): in `env`, null removes a name, an object merges into its entry. */
export const ConfigPatch = schema(() =>
  z.strictObject({
    app_version: z.optional(AppVersion),
    size: z.optional(Size),
    env: z.optional(z.nullable(z.record(EnvName, z.nullable(EnvEntryInput)))),
    hibernation: z
      .optional(z.nullable(z.strictObject({ schedules: z.optional(HibernationSchedules), time_zone: z.optional(z.nullable(TimeZone)) })))
      .check(z.describe('null removes the schedules; an object merges into them (its schedules replace the list whole).')),
  }),
);

/** Decision 50: POST /deployments/{id}/hibernate and /wake. */
export const HibernationBody = schema(() =>
  z.strictObject({
    until: z
      .optional(z.string().check(z.maxLength(24), z.regex(TIMESTAMP_PATTERN, 'must be a timestamp such as 2026-11-28T06:40:00.000Z')))
      .check(z.describe('The end of the manual hold: in the future, at most 7 days ahead. Scheduled transitions before it are skipped.')),
  }),
);
export type HibernationBody = z.infer<typeof HibernationBody>;

export type ConfigPatch = z.infer<typeof ConfigPatch>;

export const PatchDeploymentBody = schema(() => z.strictObject({ config: z.optional(ConfigPatch) }));
export type PatchDeploymentBody = z.infer<typeof PatchDeploymentBody>;

export const RollbackBody = schema(() => z.strictObject({ revision: z.int().check(z.gte(1), z.lte(2 ** 31 - 1)) }));

export const DryRunQuery = schema(() =>
  z.object({
    dry_run: z
      .pipe(
        z.optional(z.enum(['true', 'false'])),
        z.transform((v: 'true' | 'false' | undefined) => v === 'true'),
      )
      .check(z.describe('true: answer what the update would do, and do nothing.')),
  }),
);

export const CreateDeploymentBody = schema(() =>
  z.strictObject({
    app_type: AppType,
    name: z.optional(DeploymentName),
    environment_id: z
      .optional(z.string().check(z.maxLength(NAME_MAX_LENGTH)))
      .check(z.describe('An id from GET /environments; default env_default.')),
    config: z.optional(ConfigInput),
  }),
);
export type CreateDeploymentBody = z.infer<typeof CreateDeploymentBody>;

export const CreateAppUserBody = schema(() =>
  z.strictObject({
    username: z.string().check(...shortName()),
    email: z.email().check(z.maxLength(254)),
    role: z.enum(USER_ROLES),
    password: z.optional(
      z.string().check(z.minLength(12), z.maxLength(128), z.describe('12-128 characters; absent: the service makes one (decision 51).')),
    ),
  }),
);
export type CreateAppUserBody = z.infer<typeof CreateAppUserBody>;

/** Endpoints that take no body accept none, or an empty object. */
export const EmptyBody = schema(() => z.strictObject({}));

/** A query integer: digits only (no sign, no decimals), then range-checked. */
/* @__NO_SIDE_EFFECTS__ */
export function queryInt(min: number, max: number, fallback: number) {
  return z.pipe(
    z.optional(
      z.pipe(
        z.pipe(z.string().check(z.regex(/^\d{1,9}$/, 'must be an integer')), z.transform(Number)),
        z.int().check(z.gte(min), z.lte(max)),
      ),
    ),
    z.transform((v: number | undefined) => v ?? fallback),
  );
}

const Paging = schema(() => ({
  page: queryInt(1, 999_999_999, 1),
  per_page: queryInt(1, PAGE_SIZE_MAX, PAGE_SIZE_DEFAULT),
}));

const UUID = '[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}';

/**
 * The forms of the ids a `resource_id` filter takes (decision 5), each as a pattern
 * without flags (case-insensitive by its classes), so the OpenAPI document can show it
 * as it is. What each form is, and its example, are the document's
 * (docs/openapi-parameters.ts): every function bundles this table.
 */
export const ID_FORMS = {
  deployment: { pattern: `^${UUID}$` },
  depPrefixed: { pattern: `^[dD][eE][pP]_${UUID}$` },
  operation: { pattern: `^[oO][pP]_${UUID}$` },
} as const;
type IdForm = (typeof ID_FORMS)[keyof typeof ID_FORMS];

/**
 * A `resource_id` filter: the id it names becomes part of an index's partition key, so
 * only the forms an id can have are read (decision 5: `dep_<uuid>` is read as `<uuid>`);
 * anything else is 400 rather than a query for it.
 */
/* @__NO_SIDE_EFFECTS__ */
function resourceIdFilter(forms: readonly IdForm[], rule: string) {
  return z.optional(
    z.pipe(
      z.string().check(z.regex(new RegExp(forms.map((f) => f.pattern).join('|')), rule)),
      z.transform((id: string) => id.replace(/^dep_/i, '').toLowerCase()),
    ),
  );
}
const DEPLOYMENT_ID_RULE = 'must be a deployment id (a UUID, or dep_<uuid>)';

export const ListQuery = schema(() => z.object(Paging));
export const ListDeploymentsQuery = schema(() => z.object({ ...Paging, status: z.optional(DeploymentStatus) }));
export const ListOperationsQuery = schema(() =>
  z.object({
    ...Paging,
    status: z.optional(OperationStatus),
    type: z.optional(OperationType),
    resource_id: resourceIdFilter([ID_FORMS.deployment, ID_FORMS.depPrefixed], DEPLOYMENT_ID_RULE),
  }),
);
export const ListEventsQuery = schema(() =>
  z.object({
    ...Paging,
    type: z.optional(EventType),
    resource_id: resourceIdFilter(
      [ID_FORMS.deployment, ID_FORMS.depPrefixed, ID_FORMS.operation],
      'must be a deployment id (a UUID, or dep_<uuid>) or an operation id (op_<uuid>)',
    ).check(z.describe('A deployment or operation id (`dep_<uuid>`, read as `<uuid>`, is deprecated).')),
  }),
);
export type ListDeploymentsQuery = z.infer<typeof ListDeploymentsQuery>;
export type ListOperationsQuery = z.infer<typeof ListOperationsQuery>;
export type ListEventsQuery = z.infer<typeof ListEventsQuery>;

/** Decision 36: how long to wait (seconds), and the phase whose end is awaited. */
export const WaitOperationQuery = schema(() =>
  z.object({
    timeout: queryInt(WAIT_TIMEOUT_SECONDS.min, WAIT_TIMEOUT_SECONDS.max, WAIT_TIMEOUT_SECONDS.default).check(
      z.describe(
        `Seconds to wait at most (${WAIT_TIMEOUT_SECONDS.min}-${WAIT_TIMEOUT_SECONDS.max}, default ${WAIT_TIMEOUT_SECONDS.default}).`,
      ),
    ),
    phase: z.optional(Phase).check(z.describe('Answer as soon as the operation is no longer in this phase.')),
  }),
);

/** Decision 38: where and what to deliver. The URL's host is checked again at delivery. */
export const CreateWebhookBody = schema(() =>
  z.strictObject({
    url: z
      .string()
      .check(
        z.minLength(1),
        z.maxLength(WEBHOOK_URL_MAX_LENGTH),
        z.describe(`An absolute https URL, without user or password, of at most ${WEBHOOK_URL_MAX_LENGTH} characters.`),
      ),
    events: z
      .optional(z.array(EventType).check(z.minLength(1), z.maxLength(EVENT_TYPES.length)))
      .check(z.describe('The event types to deliver (default: all four).')),
    description: z.optional(z.string().check(z.maxLength(WEBHOOK_DESCRIPTION_MAX_LENGTH))),
  }),
);
export type CreateWebhookBody = z.infer<typeof CreateWebhookBody>;
export const WebhookIdParams = schema(() => z.object({ webhook_id: z.string() }));

export const EnvironmentIdParams = schema(() => z.object({ environment_id: z.string() }));
export const DocsAssetParams = schema(() => z.object({ asset: z.string() }));
export const DeploymentIdParams = schema(() => z.object({ deployment_id: z.string() }));
export const OperationIdParams = schema(() => z.object({ operation_id: z.string() }));
export const RevisionParams = schema(() => z.object({ deployment_id: z.string(), revision: z.string() }));

// ---- responses ---------------------------------------------------------------

export const Pagination = schema(() =>
  z.object({
    page: z.int(),
    per_page: z.int(),
    total: z.int(),
    pages: z.int(),
  }),
);
export type Pagination = z.infer<typeof Pagination>;

export const ListLinks = schema(() =>
  z.object({
    self: z.string(),
    first: z.string(),
    last: z.string(),
    next: z.nullable(z.string()),
    prev: z.nullable(z.string()),
  }),
);
export type ListLinks = z.infer<typeof ListLinks>;

const EnvEntryView = schema(() =>
  z.union([
    z.object({ value: z.string(), secret: z.literal(false) }),
    z.object({ secret: z.literal(true) }).check(z.describe('A secret: its value is never shown.')),
  ]),
);

export type EnvEntryView = z.infer<typeof EnvEntryView>;

/** Decision 50: a configuration's hibernation schedules, as shown (`time_zone` always). */
const HibernationConfigView = schema(() =>
  z.object({ schedules: z.array(z.object({ hibernate: z.string(), wake: z.string() })), time_zone: z.string() }),
);
export type HibernationConfigView = z.infer<typeof HibernationConfigView>;

export const Config = schema(() =>
  z.object({
    app_version: z.string(),
    size: Size,
    env: z.record(z.string(), EnvEntryView),
    hibernation: z.nullable(HibernationConfigView),
  }),
);
export type Config = z.infer<typeof Config>;

/** One changed leaf: `config.app_version`, `config.size` or `config.env.<NAME>`, as shown; null when absent. */
export const ConfigChange = schema(() =>
  z.object({
    field: z.string(),
    from: z.nullable(z.union([z.string(), EnvEntryView, HibernationConfigView])),
    to: z.nullable(z.union([z.string(), EnvEntryView, HibernationConfigView])),
  }),
);
export type ConfigChange = z.infer<typeof ConfigChange>;

/** Decision 48: the rolled-up health every deployment record carries. */
export const DeploymentHealth = schema(() =>
  z.object({
    status: z.enum(HEALTH_STATUSES),
    since: Timestamp.check(z.describe('When the status last changed (at creation, created_at).')),
  }),
);

export const Deployment = schema(() =>
  z.object({
    id: z.uuid(),
    name: z.string(),
    app_type: AppType,
    status: DeploymentStatus,
    url: z.optional(z.string()).check(z.describe('Present only while status is ready.')),
    health: DeploymentHealth,
    hibernation: z.object({
      state: z.enum(['awake', 'hibernated']),
      until: z.nullable(Timestamp).check(z.describe('The end of a manual hold in force that was given one, else null.')),
    }),
    environment_id: z.string(),
    created_at: Timestamp,
    config: Config,
    revision: z.int().check(z.describe('1 at creation; each applied update adds one. Also the ETag.')),
    updated_at: Timestamp.check(z.describe('When the current revision was applied.')),
    links: z.object({ self: z.string(), operation: z.nullable(z.string()) }),
  }),
);
export type Deployment = z.infer<typeof Deployment>;

/** What a dry run answers: the record as it would be after the update, and what would change. */
export const DryRun = schema(() => z.object({ deployment: Deployment, changes: z.array(ConfigChange) }));

/* @__NO_SIDE_EFFECTS__ */
export function dryRunOrDeployment() {
  return z.union([Deployment, DryRun]);
}

export const Revision = schema(() =>
  z.object({
    revision: z.int(),
    config: Config,
    created_at: Timestamp.check(z.describe('When it was applied.')),
    operation_id: z.string(),
    rollback_of: z.nullable(z.int()).check(z.describe('The revision a rollback restored, else null.')),
  }),
);
export type Revision = z.infer<typeof Revision>;

export const Operation = schema(() =>
  z.object({
    id: z.string().check(z.regex(/^op_[0-9a-f-]{36}$/)),
    type: OperationType,
    status: OperationStatus,
    progress: z.object({ phase: Phase, message: z.string() }),
    resource: z.object({ type: z.literal('deployment'), id: z.uuid() }),
    requested_at: Timestamp,
    started_at: z.optional(Timestamp),
    ended_at: z.optional(Timestamp),
    error: z.optional(
      z.object({
        code: z.string(),
        message: z.string(),
        phase: Phase.check(z.describe('The phase it failed in (decision 45).')),
        retryable: z
          .boolean()
          .check(z.describe('True when sending the same request again may succeed: a transient failure, a timeout (decision 45).')),
      }),
    ),
    result: z.optional(z.record(z.string(), z.unknown())),
    changes: z.optional(z.array(ConfigChange)).check(z.describe('deployment.update: what it changes.')),
    links: z.object({ self: z.string(), resource: z.string() }),
  }),
);
export type Operation = z.infer<typeof Operation>;

/** Decision 45: one line of an operation's log. */
export const OperationLogLine = schema(() =>
  z.object({
    sequence: z.int().check(z.describe('1, 2, 3, … with no gaps, oldest first.')),
    time: Timestamp.check(z.describe('Never earlier than the line before.')),
    phase: Phase.check(z.describe("The operation's phase when the line was written.")),
    level: LogLevel,
    message: z.string(),
  }),
);
export type OperationLogLine = z.infer<typeof OperationLogLine>;

export const Environment = schema(() =>
  z.object({
    id: z.string(),
    name: z.string(),
    is_default: z.boolean(),
    created_at: Timestamp,
    links: z.object({ self: z.string() }),
  }),
);
export type Environment = z.infer<typeof Environment>;

export const ApiKeyInfo = schema(() =>
  z.object({
    id: z.string(),
    name: z.string(),
    org_id: z.string(),
    scopes: z.array(Scope),
    expires_at: z.nullable(Timestamp),
    created_at: Timestamp,
    hint: z.string(),
    last_used_at: z.nullable(Timestamp).check(z.describe('When the key was used before this request; null for its first.')),
  }),
);
export type ApiKeyInfo = z.infer<typeof ApiKeyInfo>;

/** Decision 46: who made a change. */
export const Actor = schema(() =>
  z
    .union([
      z.object({ type: z.literal('api_key'), id: z.string().check(z.describe('The key’s id, as GET /key shows it.')) }),
      z.object({ type: z.literal('user'), id: z.string().check(z.describe('The dashboard user’s id.')) }),
      z.object({ type: z.literal('system') }),
    ])
    .check(
      z.describe(
        'Who made the change: the API key whose request made it (the changes that request made to other records included), the dashboard user, or the system (the workflow: phases, ends).',
      ),
    ),
);
export type Actor = z.infer<typeof Actor>;

export const Event = schema(() =>
  z.object({
    id: z.string().check(z.regex(/^evt_[0-9a-f-]{36}$/)),
    type: EventType,
    sequence: z.int().check(z.describe("The organization's event counter: 1, 2, 3, … with no gaps, in the order the changes happened.")),
    created_at: Timestamp,
    actor: Actor,
    data: z.object({
      object: z.union([Deployment, Operation]).check(z.describe('The record after the change, as its GET returns it.')),
      previous: z
        .optional(z.record(z.string(), z.unknown()))
        .check(z.describe('For each top-level field that changed, its earlier value (null when it was absent). Absent on *.created.')),
    }),
  }),
);
export type Event = z.infer<typeof Event>;

export const Webhook = schema(() =>
  z.object({
    id: z.string().check(z.regex(/^wh_[0-9a-f]{32}$/)),
    url: z.string(),
    events: z.array(EventType),
    description: z.nullable(z.string()),
    created_at: Timestamp,
    links: z.object({ self: z.string() }),
  }),
);
export type Webhook = z.infer<typeof Webhook>;

export const CreatedWebhook = schema(() =>
  z.extend(Webhook, {
    secret: z.optional(
      z
        .string()
        .check(
          z.regex(/^whsec_[A-Za-z0-9+/]{43}=$/),
          z.describe(
            'The signing secret: shown here once, never again. An Idempotency-Key replay repeats it only to the key that created the webhook, and only while the webhook exists; other replays omit it.',
          ),
        ),
    ),
  }),
);

export const DeletedWebhook = schema(() => z.object({ id: z.string(), deleted: z.literal(true) }));

export const WebhookDelivery = schema(() =>
  z.object({
    event_id: z.string(),
    attempt: z.int(),
    attempted_at: Timestamp,
    status_code: z.nullable(z.int()).check(z.describe('null when there was no answer (refused, timed out, not allowed).')),
    succeeded: z.boolean(),
  }),
);
export type WebhookDelivery = z.infer<typeof WebhookDelivery>;

export const Accepted = schema(() =>
  z.object({
    deployment_id: z.uuid(),
    operation_id: z.string(),
    links: z.object({ deployment: z.string(), operation: z.string() }),
  }),
);
export type Accepted = z.infer<typeof Accepted>;

/** Decision 51: the app user's password, shown in this answer (and an Idempotency-Key replay of it) only. */
export const AppUserAccepted = schema(() =>
  z.extend(Accepted, {
    initial_password: z.optional(
      z
        .string()
        .check(
          z.describe(
            'The password the user signs in with: the one given, or 24 letters and digits the service made. Shown here once, never again; an Idempotency-Key replay repeats it only to the key that sent the request, and only while the deployment is not destroyed; other replays omit it.',
          ),
        ),
    ),
  }),
);

/* @__NO_SIDE_EFFECTS__ */
export function listOf<T extends z.ZodMiniType>(item: T) {
  return z.object({ items: z.array(item), pagination: Pagination, links: ListLinks });
}

export const ErrorBody = schema(() =>
  z.object({
    error: z.object({
      code: z.string(),
      message: z.string(),
      request_id: z.string(),
      details: z.optional(z.array(z.object({ field: z.string(), issue: z.string() }))),
      operation_id: z.optional(z.string()),
    }),
  }),
);
