/** Test fixtures: fresh organizations and keys in DynamoDB Local, and handler invocation. */
import { randomUUID } from 'node:crypto';
import { API_PREFIX } from '../../contract/routes.js';
import type { Scope } from '../../contract/schemas.js';
import { saveKey } from '../../functions/adapters/dynamo/api-key-store.js';
import { type ApiKeyRecord, generateKey, generateLegacyKey } from '../../functions/core/api-keys.js';
import { config } from '../../functions/lib/config.js';
import { invokeGateway } from '../../local/gateway.js';
import { assertConforms, compileAllValidators } from './openapi-conformance.js';

// Compile the OpenAPI checks once per test file up front, not inside a test that times an operation.
beforeAll(compileAllValidators);

export const newOrgId = () => `org-${randomUUID().slice(0, 8)}`;

export interface TestKey {
  key: string;
  record: ApiKeyRecord;
}

/** Stores a key record as key management would, within the organization's key limit (refused: the test fails). */
export async function storeKey(record: ApiKeyRecord): Promise<void> {
  if (!(await saveKey(record, config().keysPerOrganization))) throw new Error(`organization ${record.org_id} holds its most keys`);
}

/** The secret this worker's keys are signed with (env.ts sets API_KEY_SECRET). */
export const signingSecret = (): Buffer => Buffer.from(process.env.API_KEY_SECRET ?? '', 'base64');

/** A stored key: signed, as keys are issued now, or `legacy` (CRC-checked), as keys issued before. */
export async function createKey(
  opts: { orgId?: string; scopes?: Scope[]; expiresAt?: string | null; name?: string; legacy?: boolean } = {},
): Promise<TestKey> {
  const input = {
    orgId: opts.orgId ?? newOrgId(),
    name: opts.name ?? 'test',
    scopes: opts.scopes,
    expiresAt: opts.expiresAt ?? null,
    now: new Date(),
  };
  const made = opts.legacy ? generateLegacyKey(input) : generateKey(input, signingSecret());
  await storeKey(made.record);
  return made;
}

/**
 * `n` keys of one organization, stored one after another: stored at once, their
 * transactions all wait on the organization's key count, and DynamoDB Local gives up on
 * such a wait ("timed out ... waiting for a lock", a 500 DynamoDB itself never answers).
 * A test's keys are its setup, not the race it holds.
 */
export async function createKeys(n: number, orgId: string): Promise<TestKey[]> {
  const keys: TestKey[] = [];
  for (let i = 0; i < n; i++) keys.push(await createKey({ orgId }));
  return keys;
}

export interface CallOptions {
  key?: string;
  headers?: Record<string, string>;
  body?: unknown;
  /** The body exactly as sent: text, or bytes that need not be UTF-8. */
  rawBody?: string | Buffer;
  /** The client address API Gateway would report (default 127.0.0.1). */
  sourceIp?: string;
}

export interface CallResult {
  status: number;
  headers: Record<string, string>;
  body: any;
}

/** Sends a request through the local gateway to the real handler module, as API Gateway would. */
export async function call(method: string, pathAndQuery: string, opts: CallOptions = {}): Promise<CallResult> {
  const headers: Record<string, string> = { ...opts.headers };
  if (opts.key) headers['X-API-Key'] = opts.key;
  let body = Buffer.alloc(0);
  if (opts.rawBody !== undefined) body = Buffer.from(opts.rawBody);
  else if (opts.body !== undefined) {
    body = Buffer.from(JSON.stringify(opts.body));
    headers['Content-Type'] ??= 'application/json';
  }
  const url = API_PREFIX + pathAndQuery;
  const res = await invokeGateway({ method, url, rawHeaders: Object.entries(headers).flat(), body, sourceIp: opts.sourceIp });
  const outHeaders: Record<string, string> = {};
  for (const [k, v] of Object.entries(res.headers ?? {})) outHeaders[k.toLowerCase()] = String(v);
  let parsed: unknown = res.body;
  if (outHeaders['content-type']?.startsWith('application/json')) parsed = JSON.parse(res.body);
  // Every response a test sees must be one the OpenAPI document describes.
  assertConforms({ method, path: new URL(url, 'http://localhost').pathname, status: res.statusCode, headers: outHeaders, body: parsed });
  return { status: res.statusCode, headers: outHeaders, body: parsed };
}
