/**
 * Path, query and body against the route's zod schemas (decisions 8 and 24): a
 * 400 INVALID_REQUEST whose `details` say, per field, what is wrong with what was sent.
 */
import type * as z from 'zod/mini';
import { type FieldIssue, invalidRequest } from '../../contract/errors.js';
import type { Route } from '../../contract/routes.js';
import type { ApiMiddleware } from './api-request.js';

/** What a value sent is, in the words of a JSON user. */
function kindOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  const type = typeof value;
  return type === 'object' ? 'an object' : `a ${type}`;
}

/** Whether the input holds the field at `path`, and its value. */
function lookup(input: unknown, path: readonly PropertyKey[]): { present: boolean; value: unknown } {
  let value = input;
  for (const key of path) {
    if (value === null || typeof value !== 'object' || !Object.hasOwn(value, key)) return { present: false, value: undefined };
    value = (value as Record<PropertyKey, unknown>)[key];
  }
  return { present: true, value };
}

/** zod issues as the error's `details` list, saying what is wrong with the value that was sent, so a form can mark the right input (decision 1). */
export function fieldIssues(error: z.core.$ZodError, input: unknown): FieldIssue[] {
  return error.issues.flatMap((issue): FieldIssue[] => {
    const field = issue.path.map(String).join('.');
    if (issue.code === 'unrecognized_keys') {
      return issue.keys.map((k) => ({ field: [field, k].filter(Boolean).join('.'), issue: 'unknown field' }));
    }
    const sent = lookup(input, issue.path);
    if (!sent.present) return [{ field, issue: 'is required' }];
    if (issue.code === 'invalid_type') return [{ field, issue: `must be ${article(issue.expected)}, not ${kindOf(sent.value)}` }];
    if (issue.code === 'invalid_value') return [{ field, issue: `must be one of: ${issue.values.join(', ')}` }];
    return [{ field: field || '(body)', issue: issue.message }];
  });
}

const article = (type: string) => (/^[aeiou]/.test(type) ? `an ${type}` : `a ${type}`);

/**
 * The paths of the `__proto__` keys of a parsed body (JSON.parse makes each an own
 * property). zod reports one where an object's fields are fixed (an unknown field), but a
 * record (`config.env`) leaves it out of what it answers without a word, and the stores
 * could not keep it either: each is refused at its path (decision 296). Walked with a
 * list, not recursion: a body may nest as deep as its size allows.
 */
export function protoKeyPaths(body: unknown): string[] {
  const found: string[] = [];
  const todo: [unknown, string][] = [[body, '']];
  for (let next = todo.pop(); next; next = todo.pop()) {
    const [value, path] = next;
    if (value === null || typeof value !== 'object') continue;
    for (const key of Object.keys(value)) {
      const at = path ? `${path}.${key}` : key;
      if (key === '__proto__') found.push(at);
      else todo.push([(value as Record<string, unknown>)[key], at]);
    }
  }
  return found;
}

function parse<S extends z.ZodMiniType>(schema: S, input: unknown, what: string, reserved: readonly string[] = []): z.output<S> {
  const result = schema.safeParse(input);
  const issues = result.success ? [] : fieldIssues(result.error, input);
  for (const field of reserved) if (!issues.some((i) => i.field === field)) issues.push({ field, issue: 'is a reserved name' });
  if (result.success && issues.length === 0) return result.data;
  throw invalidRequest(`The ${what} is invalid.`, issues);
}

/** The names a query schema knows (its object's fields). */
const knownNames = (schema: z.ZodMiniType): string[] => Object.keys((schema as z.ZodMiniObject)._zod.def.shape ?? {});

/**
 * Decision 24 (amended): a known query parameter given more than once is refused rather
 * than read as its last value (`dry_run=true&dry_run=false` applied the update). API
 * Gateway gives every value in `multiValueQueryStringParameters`, as the local gateway does.
 */
export function repeatedQueryNames(
  schema: z.ZodMiniType,
  multi: Readonly<Record<string, readonly string[] | undefined>> | null | undefined,
) {
  if (!multi) return [];
  return knownNames(schema).filter((name) => Object.hasOwn(multi, name) && (multi[name]?.length ?? 0) > 1);
}

export const validateInput = (route: Pick<Route, 'params' | 'query' | 'body'>): ApiMiddleware => ({
  before(request) {
    const { event } = request;
    const { input } = request.context.api;
    if (route.params) input.params = parse(route.params, event.pathParameters ?? {}, 'path');
    if (route.query) {
      const repeated = repeatedQueryNames(route.query, event.multiValueQueryStringParameters);
      if (repeated.length)
        throw invalidRequest(
          'A query parameter is given more than once.',
          repeated.map((field) => ({ field, issue: 'must be given at most once' })),
        );
      input.query = parse(route.query, event.queryStringParameters ?? {}, 'query');
    }
    if (route.body) {
      // json-body.ts has put the parsed JSON in event.body.
      const body: unknown = event.body;
      if (typeof body !== 'object' || body === null || Array.isArray(body)) throw invalidRequest('The request body must be a JSON object.');
      input.body = parse(route.body, body, 'request body', protoKeyPaths(body));
    }
  },
});
