/**
 * The published limits, each declared once (decision 212): what a request may send and
 * how long or how often, as docs/api.md states them. The schemas (schemas.ts,
 * dashboard-schemas.ts), the core's rules, the API's gateway settings, the client and the
 * CLI read them here. Plain data with no imports. The per-deployment rate limits and the
 * other operator-set numbers are configuration (config-variables.ts), not fixed here.
 */

/** The largest request body the API takes (decision 8). */
export const MAX_BODY_BYTES = 65_536;

/** `per_page` of every list: 1 to PAGE_SIZE_MAX, PAGE_SIZE_DEFAULT when absent. */
export const PAGE_SIZE_DEFAULT = 50;
export const PAGE_SIZE_MAX = 100;

/** A deployment's, an app user's, an API key's name; an environment id: at most this many characters. */
export const NAME_MAX_LENGTH = 64;

/** Decision 41: env names, and how many a deployment may have, and how long a value may be. */
export const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,127}$/;
export const MAX_ENV_ENTRIES = 50;
export const MAX_ENV_VALUE_LENGTH = 4096;
/**
 * The whole env, names and values in UTF-8 (decision 41, amended), so that every record and
 * event that carries a configuration (twice at most: an update's `changes`, an event's
 * `previous`) stays well inside DynamoDB's 400 KB item (decision 226).
 */
export const MAX_ENV_BYTES = 65_536;

/** Decision 36: GET /operations/{id}/wait holds a request this many seconds at most (1-20, default 20). */
export const WAIT_TIMEOUT_SECONDS = { min: 1, max: 20, default: 20 } as const;
/** Seconds a wait refused for want of a slot is told to wait: waits last 20 s at most, and many end sooner. */
export const WAIT_RETRY_AFTER_SECONDS = 2;

/** Decision 38: a webhook's URL and description, at most this many characters. */
export const WEBHOOK_URL_MAX_LENGTH = 2048;
export const WEBHOOK_DESCRIPTION_MAX_LENGTH = 255;

/**
 * An organization id: it becomes part of every partition key of the organization
 * (`ORG#<org>`), so it may hold nothing that reads as a key separator or a pattern.
 * Checked wherever a key is issued (the keys CLI, the dashboard), not only in one tool.
 */
export const ORG_ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/;
export const ORG_ID_RULE = 'must be 1-64 letters, digits, "-" or "_", starting with a letter or digit';

/**
 * A key's name is shown wherever its keys are listed: operators' terminals (`npm run keys
 * -- list`) and the dashboard. Control characters and bidirectional overrides would let
 * a name rewrite a terminal's lines or plant links there, so a name holds none.
 */
export const KEY_NAME_PATTERN = /^[^\p{Cc}\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]*$/u;
export const KEY_NAME_RULE = 'must not contain control characters';

/** Decision 47: how long a rotated key keeps working, in seconds (at most a week; a day unless told). */
export const ROTATION_GRACE = { min: 0, max: 604_800, default: 86_400 } as const;

/**
 * Failed authentications per client address: a well-formed key that matches nothing
 * costs a database read, so one address may send only so many in a clock window of
 * AUTH_FAILURE_WINDOW_SECONDS before it is refused without one.
 */
export const AUTH_FAILURE_WINDOW_SECONDS = 600;

/** A phase may last 3 days at most: the workflow's own limit (8 days) covers every phase of an operation. */
export const PHASE_TIMEOUT_MAX_SECONDS = 3 * 24 * 3600;

/** A timestamp a query may give (decision 49's start and end): ISO 8601 in UTC, milliseconds optional. */
export const TIMESTAMP_PATTERN = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{3})?Z$/;

/** A metrics window: a default period gives at most DEFAULT_MAX_PERIODS, an asked one at most MAX_PERIODS, from at most 15 days back (decision 49). */
export const METRICS_DEFAULT_MAX_PERIODS = 360;
export const METRICS_MAX_PERIODS = 1440;
export const METRICS_RETENTION_SECONDS = 15 * 24 * 3600;

/** Decision 50: a configuration's hibernation schedules, and how far ahead a manual hold may last. */
export const MAX_HIBERNATION_SCHEDULES = 10;
export const CRON_MAX_LENGTH = 100;
export const TIME_ZONE_MAX_LENGTH = 64;
export const MAX_HOLD_SECONDS = 7 * 24 * 3600;
