/**
 * deployctl events list | listen. `listen --forward-to <url>` follows GET /events and POSTs
 * each new event, signed as the service signs webhook deliveries (Standard Webhooks), to a
 * local receiver: a webhook receiver can be built against the real service without
 * exposing a port.
 */
import { PAGE_SIZE_MAX } from '../../../contract/limits.js';
import { EVENT_TYPES } from '../../../contract/vocabulary.js';
import { newWebhookSecret, signatureHeaders, webhookSecretKey } from '../../../contract/webhook-signature.js';
import type { Event } from '../../client.js';
import { ErrorResponse, formatDuration, NetworkError } from '../../errors.js';
import { listOf, nonNegativeInt, oneOf, pageQuery, single, UsageError } from '../args.js';
import { type Command, listCommand, type Run } from '../command.js';
import { EXIT, err, out } from '../context.js';

/**
 * Between two looks at the feed (decision 169): 1 s after a look that found events, twice
 * the last wait after one that found none, at most 30 s. An idle listener makes about 2
 * requests a minute, well inside the key's burst limit and light on its usage log; a busy
 * one follows within a second.
 */
export const LISTEN_POLL = { minMs: 1000, maxMs: 30_000 } as const;
export const nextPollMs = (lastMs: number, found: boolean): number => (found ? LISTEN_POLL.minMs : Math.min(LISTEN_POLL.maxMs, lastMs * 2));
/** After the n-th consecutive 5xx or network failure: 1 s × 2^(n-1), at most 30 s, up to half of it jitter (as the waiter). */
const ERROR_BASE_MS = 1000;
const MAX_ERROR_DELAY_MS = 30_000;
/** As the service's own deliveries: a receiver has 10 s to answer. */
const FORWARD_TIMEOUT_MS = 10_000;

const retryable = (e: unknown): e is ErrorResponse | NetworkError =>
  e instanceof NetworkError || (e instanceof ErrorResponse && (e.status >= 500 || e.status === 429));

/** Calls the API after `delayMs`; on a 429 (after its Retry-After), a 5xx or a network failure says so on stderr, backs off and calls again. */
async function retrying<T>(r: Run, delayMs: number, call: (signal?: AbortSignal) => Promise<T>): Promise<T> {
  const { ctx, clock } = r;
  let delay = delayMs;
  for (let failures = 0; ; ) {
    await clock.sleep(delay, ctx.signal);
    try {
      return await call(ctx.signal);
    } catch (e) {
      if (ctx.signal?.aborted || !retryable(e)) throw e;
      if (e instanceof ErrorResponse && e.status === 429 && e.retryAfter !== undefined) delay = e.retryAfter * 1000;
      else {
        const full = Math.min(MAX_ERROR_DELAY_MS, ERROR_BASE_MS * 2 ** failures++);
        delay = Math.round(full / 2 + ((ctx.random ?? Math.random)() * full) / 2);
      }
      const why = e instanceof ErrorResponse ? `${e.status} ${e.code}` : e.reason;
      err(ctx, `retrying in ${formatDuration(delay)} (${why})`);
    }
  }
}

/** The events after `cursor`, oldest first: pages of the newest-first feed until one reaches the cursor. */
async function eventsAfter(r: Run, cursor: number, signal?: AbortSignal): Promise<Event[]> {
  const found = new Map<number, Event>();
  for (let page = 1; ; page++) {
    const { items, pagination } = await r.api.listEvents({ page, per_page: PAGE_SIZE_MAX }, { signal });
    // Events that came between two pages shift the later page: the map drops the repeats.
    for (const e of items) if (e.sequence > cursor) found.set(e.sequence, e);
    if (items.length === 0 || items.some((e) => e.sequence <= cursor) || page >= pagination.pages) break;
  }
  return [...found.values()].sort((a, b) => a.sequence - b.sequence);
}

/** POSTs one event, signed, to the receiver; gives its HTTP status, or why there was none. */
async function forward(r: Run, target: string, secret: string, event: Event): Promise<string> {
  const body = JSON.stringify(event);
  const timeout = AbortSignal.timeout(FORWARD_TIMEOUT_MS);
  try {
    const res = await (r.ctx.fetch ?? fetch)(target, {
      method: 'POST',
      headers: {
        'Content-Type': 'application/json',
        'User-Agent': 'deployctl',
        ...signatureHeaders(secret, event.id, Math.floor(r.clock.now() / 1000), body),
      },
      body,
      signal: r.ctx.signal ? AbortSignal.any([r.ctx.signal, timeout]) : timeout,
    });
    await res.arrayBuffer();
    return String(res.status);
  } catch (e) {
    if (r.ctx.signal?.aborted) throw e;
    const why = timeout.aborted
      ? `no answer within ${FORWARD_TIMEOUT_MS / 1000}s`
      : ((e as { cause?: { message?: string } }).cause?.message ?? (e as Error).message);
    return `failed: ${why}`;
  }
}

function forwardTarget(value: string | undefined): string {
  if (!value) throw new UsageError('--forward-to is required (the local URL of your receiver, e.g. http://localhost:4000/webhooks)');
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new UsageError(`--forward-to must be an http or https URL (got "${value}")`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new UsageError(`--forward-to must be an http or https URL (got "${value}")`);
  return url.toString();
}

function signingSecret(given: string | undefined): string {
  if (given === undefined) return newWebhookSecret();
  try {
    webhookSecretKey(given);
  } catch {
    throw new UsageError('--secret must be whsec_ followed by base64 (as "deployctl webhooks create" prints)');
  }
  return given;
}

async function listen(r: Run): Promise<number> {
  const { values, ctx } = r;
  const target = forwardTarget(values['forward-to']);
  const types = listOf('type', values.type, EVENT_TYPES);
  const since = nonNegativeInt('since', values.since);
  if (values['from-start'] && since !== undefined) throw new UsageError('--from-start and --since exclude each other');
  const secret = signingSecret(single('secret', values.secret));
  let cursor = 0;
  let forwarded = 0;
  try {
    if (values['from-start']) cursor = 0;
    else if (since !== undefined) cursor = since;
    else cursor = (await retrying(r, 0, (signal) => r.api.listEvents({ per_page: 1 }, { signal }))).items[0]?.sequence ?? 0;
    out(ctx, `Signing secret (verify the forwarded requests with it): ${secret}`);
    err(ctx, `Forwarding ${types ? types.join(', ') : 'all'} events after sequence ${cursor} to ${target}; Ctrl-C stops.`);
    for (let wait: number = LISTEN_POLL.minMs; ; ) {
      const found = await retrying(r, wait, (signal) => eventsAfter(r, cursor, signal));
      wait = nextPollMs(wait, found.length > 0);
      for (const event of found) {
        cursor = event.sequence;
        if (types && !types.includes(event.type)) continue;
        const status = await forward(r, target, secret, event);
        out(ctx, `→ ${event.sequence} ${event.type} ${event.data.object.id} [${status}]`);
        forwarded++;
      }
    }
  } catch (e) {
    if (!ctx.signal?.aborted) throw e;
    err(ctx, `Stopped listening after ${forwarded} forwarded; resume with --since ${cursor}.`);
    return EXIT.interrupted;
  }
}

export const eventCommands: Record<string, Command> = {
  'events list': listCommand({
    options: ['type', 'resource-id'],
    list: ({ api, values }) =>
      api.listEvents({ type: oneOf('type', values.type, EVENT_TYPES), resource_id: values['resource-id'], ...pageQuery(values) }),
    header: ['SEQUENCE', 'TYPE', 'OBJECT', 'STATUS', 'CREATED', 'ID'],
    row: (e) => [String(e.sequence), e.type, e.data.object.id, e.data.object.status, e.created_at, e.id],
    empty: 'No events.',
  }),
  'events listen': {
    args: [],
    options: ['forward-to', 'type', 'secret', 'from-start', 'since'],
    run: listen,
  },
};
