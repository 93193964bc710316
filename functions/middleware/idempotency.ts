/**
 * Decision 16, in one module: the way in claims the Idempotency-Key before any work,
 * the way out stores the response (success) or gives the key back (failure). Of any
 * number of concurrent requests with one key, exactly one does the work; the others
 * wait for its response and repeat it, marked `Idempotent-Replayed: true`.
 */
import { createHash, createHmac, randomUUID } from 'node:crypto';
import { apiError, invalidRequest } from '../../contract/errors.js';
import type { Route } from '../../contract/routes.js';
import {
  claimIdempotencyKey,
  completeIdempotencyKey,
  findIdempotencyRecord,
  type IdempotencyClaim,
  releaseIdempotencyKey,
  type StoredResponse,
} from '../adapters/dynamo/idempotency-store.js';
import { keySigningSecret } from '../adapters/secrets-manager/key-signing-secret.js';
import type { SealedFor, SecretSealer } from '../core/secret-sealer.js';
import { type ApiMiddleware, type ApiRequest, intentResult } from './api-request.js';

/**
 * What a route whose answer shows a secret gives the replays of its answer: the sealer of
 * the answer kept for them, asked for when needed (the host may inject it after the
 * handler module loads), and what decides when a replay may show the secret. Only such a
 * route's handler passes one, so the other functions do not bundle the KMS client.
 *
 * A secret is shown again only to the key whose request made it, and only while what it
 * belongs to exists: any other key of the organization (one with a narrower scope, say)
 * and any replay after a delete get the same answer without the secret.
 */
export interface ReplaySealer {
  sealer(): SecretSealer;
  /** The answer without its secret. */
  redact(data: unknown): unknown;
  /** Whether what the answer created still exists. */
  stillExists(orgId: string, data: unknown): Promise<boolean>;
}

/** A kept answer is bound to its organization and Idempotency-Key. */
const keptAnswer = (claim: IdempotencyClaim): SealedFor => ({ purpose: 'replay', orgId: claim.orgId, recordId: claim.key });

/** The methods whose requests an Idempotency-Key makes safe to repeat. */
const IDEMPOTENT_METHODS = ['POST', 'PATCH'];

/** How long a request waits for a concurrent one holding its key, polling this often. */
const WAIT_FOR_HOLDER_MS = 5000;
const POLL_MS = 100;

/** Stable JSON (sorted keys), so the same body always has the same fingerprint. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value).sort(([a], [b]) => (a < b ? -1 : 1));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/**
 * The body with each secret field replaced by its HMAC under the service's signing secret:
 * the fingerprint kept 24 hours then tells the same secret from another, but a reader of the
 * table cannot test guesses of a short password against it (decision 257).
 */
async function withSecretsKeyed(body: unknown, fields: readonly string[]): Promise<unknown> {
  if (!body || typeof body !== 'object') return body;
  const secret = await keySigningSecret().read();
  const keyed = { ...(body as Record<string, unknown>) };
  for (const f of fields)
    if (typeof keyed[f] === 'string') keyed[f] = createHmac('sha256', secret).update(`idempotency-fingerprint:${keyed[f]}`).digest('hex');
  return keyed;
}

/** Claims the key, or finds the response this request repeats; waits while another request holds it. */
async function claimOrReplay(request: ApiRequest, claim: IdempotencyClaim, sealer: ReplaySealer | undefined): Promise<void> {
  const { api } = request.context;
  const deadline = Date.now() + WAIT_FOR_HOLDER_MS;
  for (;;) {
    if (await claimIdempotencyKey(claim, api.now)) {
      api.idempotency = claim;
      return;
    }
    const existing = await findIdempotencyRecord(claim.orgId, claim.key, new Date());
    if (existing && existing.fingerprint !== claim.fingerprint) throw apiError('IDEMPOTENCY_KEY_REUSED');
    if (existing?.state === 'COMPLETED') {
      api.replay = await replayOf(existing.response, claim, api.caller?.keyId, sealer);
      return;
    }
    // Held by a request still at work (or just released): look again shortly.
    if (Date.now() > deadline) throw apiError('IDEMPOTENCY_KEY_IN_USE', undefined, { headers: { 'Retry-After': '1' } });
    await new Promise((r) => setTimeout(r, POLL_MS));
  }
}

const NO_SEALER = 'A sealed answer needs the route to be given a ReplaySealer.';

/** The stored answer as this caller may see it again (see ReplaySealer). */
async function replayOf(stored: StoredResponse, claim: IdempotencyClaim, keyId: string | undefined, sealer: ReplaySealer | undefined) {
  const { sealed, key_id, ...response } = stored;
  if (!sealed) return response;
  const replay = replaySealerOf(sealer);
  const open = async () => JSON.parse(await replay.sealer().open(sealed, keptAnswer(claim)));
  if (key_id !== undefined && key_id === keyId && (await replay.stillExists(claim.orgId, response.data))) {
    return { ...response, data: await open() };
  }
  // An answer stored before the redacted copy was kept has only its sealed form.
  return response.data === undefined ? { ...response, data: replay.redact(await open()) } : response;
}

const replaySealerOf = (sealer: ReplaySealer | undefined): ReplaySealer => {
  if (!sealer) throw new Error(NO_SEALER);
  return sealer;
};

/** `route.secretInAnswer`: the stored answer is sealed by `sealer`, so the table never holds the secret in the clear. */
export const idempotency = (route: Route, sealer?: ReplaySealer): ApiMiddleware => {
  if (route.secretInAnswer && !sealer) throw new Error(NO_SEALER);
  return {
    async before(request) {
      const { api } = request.context;
      const key = request.event.headers['idempotency-key'];
      // Only a POST or a PATCH is claimed: those are the requests that would do the work twice (decisions 16 and 42).
      if (key === undefined || !IDEMPOTENT_METHODS.includes(request.event.httpMethod) || !api.caller) return;
      if (key.length < 1 || key.length > 255) {
        throw invalidRequest('The Idempotency-Key header must be 1-255 characters.', [
          { field: 'Idempotency-Key', issue: 'must be 1-255 characters' },
        ]);
      }
      const body = route.secretFields ? await withSecretsKeyed(api.input.body, route.secretFields) : api.input.body;
      const fingerprint = createHash('sha256')
        // The query too, where the route takes one: a dry run and the update itself are different requests.
        .update(
          `${request.event.httpMethod} ${request.event.path} ${canonical(body ?? {})}${route.query ? ` ${canonical(api.input.query)}` : ''}`,
        )
        .digest('hex');
      await claimOrReplay(request, { orgId: api.caller.orgId, key, fingerprint, claimId: randomUUID() }, sealer);
    },
    async after(request) {
      const claim = request.context.api.idempotency;
      // Before the envelope: the response is still the intent's result.
      const result = intentResult(request.response);
      if (!claim || !result || 'raw' in result) return;
      const status = result.status ?? 200;
      if (status < 300) {
        const headers = result.headers ?? {};
        const replay = route.secretInAnswer ? replaySealerOf(sealer) : undefined;
        const stored: StoredResponse = replay
          ? {
              status,
              data: replay.redact(result.data),
              sealed: await replay.sealer().seal(JSON.stringify(result.data), keptAnswer(claim)),
              key_id: request.context.api.caller?.keyId,
              headers,
            }
          : { status, data: result.data, headers };
        await completeIdempotencyKey(claim, stored, new Date());
      } else await releaseIdempotencyKey(claim);
    },
    async onError(request) {
      const claim = request.context.api?.idempotency;
      if (claim) await releaseIdempotencyKey(claim);
    },
  };
};
