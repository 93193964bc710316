/**
 * The parameters of each operation: the request headers every operation takes (components),
 * and the finishing touches on the path and query parameters zod-to-openapi generates
 * (descriptions, the asset allow-list, integer bounds and defaults).
 */
import type { OpenAPIRegistry } from '@asteasolutions/zod-to-openapi';
import * as z from 'zod';
import { ZodMiniObject } from 'zod/mini';
import { PAGE_SIZE_MAX } from '../../contract/limits.js';
import type { Route } from '../../contract/routes.js';
import * as s from '../../contract/schemas.js';
import { DEPRECATIONS } from '../core/deprecations.js';
import { DOCS_ASSET_NAMES } from './docs-assets.js';
import { ref } from './openapi-refs.js';
import { classic } from './openapi-zod.js';

const PARAM_DOCS: Record<string, string> = {
  deployment_id: 'Deployment id (a UUID).',
  operation_id: 'Operation id (`op_<uuid>`).',
  environment_id: 'Environment id, e.g. `env_default`.',
  webhook_id: 'Webhook id (`wh_` and 32 hex digits).',
  asset: 'File name of a documentation asset.',
  page: 'Page number, 1-indexed.',
  per_page: `Items per page, at most ${PAGE_SIZE_MAX}.`,
  status: 'Only items with this status.',
  type: 'Only items of this type.',
  resource_id: 'Only the records of this resource (a deployment id; `dep_<uuid>`, read as `<uuid>`, is deprecated).',
};

export function registerRequestHeaders(registry: OpenAPIRegistry): void {
  registry.registerComponent('parameters', 'IdempotencyKey', {
    name: 'Idempotency-Key',
    in: 'header',
    required: false,
    schema: { type: 'string', minLength: 1, maxLength: 255 },
    description:
      'Makes the POST safe to retry: the same key within 24 hours replays the first response (with `Idempotent-Replayed: true`); the same key with a different body is `409 IDEMPOTENCY_KEY_REUSED`; the same key while its first request is still being processed is `409 IDEMPOTENCY_KEY_IN_USE` (retry after `Retry-After` seconds).',
  });
  registry.registerComponent('parameters', 'RequestId', {
    name: 'X-Request-Id',
    in: 'header',
    required: false,
    schema: { type: 'string', maxLength: 128 },
    description:
      'Your id for this request (up to 128 characters of `A-Za-z0-9._:-`), echoed in the X-Request-Id response header and in error bodies.',
  });
}

/**
 * Path ids are read as any text and answered `404` when they name nothing, so the
 * document bounds them generously, above the longest id form (`op_<uuid>`, 39 characters):
 * a longer value names nothing either (decision 160).
 */
export const PATH_PARAM_MAX_LENGTH = 128;

/** Query integers are strings to zod (it parses them); to clients they are integers with bounds and defaults. */
function describeQueryParam(field: z.ZodType): Record<string, unknown> | undefined {
  let found: z.ZodNumber | undefined;
  const visit = (t: z.ZodType): void => {
    if (found) return;
    if (t instanceof z.ZodNumber) found = t;
    else if (t instanceof z.ZodPipe) {
      visit(t.in as z.ZodType);
      visit(t.out as z.ZodType);
    } else if (t instanceof z.ZodOptional || t instanceof z.ZodDefault) visit(t.unwrap() as z.ZodType);
  };
  visit(field);
  if (!found) return undefined;
  const { $schema: _ignored, ...schema } = z.toJSONSchema(found) as Record<string, unknown>;
  const fallback = field.safeParse(undefined);
  return { ...schema, ...(fallback.success && fallback.data !== undefined ? { default: fallback.data } : {}) };
}

/**
 * A flag (`dry_run`) is the strings `true`/`false` to zod, which reads them as a boolean; to
 * clients it is a boolean (a query string carries it as `true` or `false` either way).
 */
function describeFlag(field: z.ZodType): Record<string, unknown> | undefined {
  const read = (v: unknown) => field.safeParse(v);
  const [yes, no, other] = [read('true'), read('false'), read('yes')];
  if (!(yes.success && yes.data === true && no.success && no.data === false && !other.success)) return undefined;
  const fallback = read(undefined);
  return { type: 'boolean', ...(fallback.success ? { default: fallback.data } : {}) };
}

/** What each id form is, and an id of it: the document's words, kept out of the functions' bundles. */
const ID_FORM_DOCS: { readonly [F in keyof typeof s.ID_FORMS]: { readonly description: string; readonly example: string } } = {
  deployment: { description: 'A deployment id (a UUID).', example: '3f2b8c1e-6d4a-4e7b-9a51-0c8d2e7f4a10' },
  depPrefixed: { description: 'A deployment id as `dep_<uuid>`, read as `<uuid>`.', example: 'dep_3f2b8c1e-6d4a-4e7b-9a51-0c8d2e7f4a10' },
  operation: { description: 'An operation id (`op_<uuid>`).', example: 'op_8a1d2c3b-4e5f-4a6b-8c7d-9e0f1a2b3c4d' },
};

/**
 * An id parameter's forms (contract/schemas.ts ID_FORMS), as the `oneOf` of those its schema
 * accepts, tried on each form's example; a form a deprecation names is `deprecated: true`
 * there (decision 44).
 */
function idForms(route: Route, name: string, field: z.ZodType): Record<string, unknown> | undefined {
  const forms = (Object.keys(s.ID_FORMS) as (keyof typeof s.ID_FORMS)[])
    .map((form) => [form, { ...s.ID_FORMS[form], ...ID_FORM_DOCS[form] }] as const)
    .filter(([, f]) => field.safeParse(f.example).success);
  if (forms.length === 0) return undefined;
  const deprecated = (form: string) =>
    DEPRECATIONS.some((d) => d.use.query === name && d.use.form === form && d.use.routes.includes(`${route.method} ${route.path}`));
  return {
    type: 'string',
    maxLength: Math.max(...forms.map(([, f]) => f.example.length)),
    oneOf: forms.map(([form, f]) => ({
      pattern: f.pattern,
      description: f.description,
      ...(deprecated(form) ? { deprecated: true } : {}),
    })),
  };
}

interface GeneratedParameter {
  name: string;
  in: string;
  description?: string;
  schema?: Record<string, unknown>;
}

/** A route's parameters as generated, completed: described, typed, and followed by the request headers it takes. */
export function completeParameters(route: Route, generated: unknown[] | undefined): unknown[] {
  const shape = route.query instanceof ZodMiniObject ? ((classic(route.query) as z.ZodObject).shape as Record<string, z.ZodType>) : {};
  const params = (generated ?? []) as GeneratedParameter[];
  for (const p of params) {
    if ('$ref' in p) continue;
    p.description ??= PARAM_DOCS[p.name];
    if (p.in === 'path') {
      p.schema =
        p.name === 'asset'
          ? { type: 'string', enum: [...DOCS_ASSET_NAMES] }
          : { ...p.schema, minLength: 1, maxLength: PATH_PARAM_MAX_LENGTH };
    }
    const field = p.in === 'query' ? shape[p.name] : undefined;
    const typed = field && (describeQueryParam(field) ?? describeFlag(field) ?? idForms(route, p.name, field));
    if (typed) p.schema = typed;
  }
  return [...params, ref('parameters', 'RequestId'), ...(route.method === 'POST' ? [ref('parameters', 'IdempotencyKey')] : [])];
}
