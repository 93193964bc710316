/**
 * Outbound POSTs to customer-chosen URLs (webhooks, decision 38), guarded against SSRF.
 *
 * The URL comes from a customer, so without WEBHOOK_ALLOW_INSECURE it must not reach
 * anything that is not on the public internet: our own loopback, the VPC, the instance
 * metadata service (169.254.169.254). Two checks, because a name can be re-pointed
 * between them:
 *  - at creation, `webhookUrlProblem` refuses the shape (scheme, user info, length) and
 *    hosts that are non-public IP literals or `localhost`; it does not resolve DNS.
 *  - at delivery, `safePost` resolves the name, refuses it if ANY address is non-public,
 *    and then connects to exactly the addresses it checked (no second lookup that a
 *    hostile DNS server could answer differently, i.e. no DNS rebinding).
 */
import type { LookupAddress } from 'node:dns';
import { lookup as dnsLookup } from 'node:dns/promises';
import http from 'node:http';
import https from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import ipaddr from 'ipaddr.js';

export const MAX_WEBHOOK_URL_LENGTH = 2048;

/** Why `url` cannot be a webhook URL, as a short phrase for a 400 message; undefined when it can. */
export function webhookUrlProblem(url: string, allowInsecure: boolean): string | undefined {
  if (url.length > MAX_WEBHOOK_URL_LENGTH) return `must be at most ${MAX_WEBHOOK_URL_LENGTH} characters`;
  // URL parsing drops tabs and line breaks silently: a URL that holds one is not what it reads as.
  if (/\p{Cc}/u.test(url)) return 'must not contain control characters';
  const parsed = parseAbsolute(url);
  if (!parsed || !allowedSchemes(allowInsecure).includes(parsed.protocol)) {
    return allowInsecure ? 'must be an absolute http or https URL' : 'must be an absolute https URL';
  }
  // Credentials in a URL end up in logs and in our table; the signature authenticates us instead.
  if (parsed.username !== '' || parsed.password !== '') return 'must not contain a user or password';
  if (!allowInsecure && !isPublicHost(hostOf(parsed))) return 'must not point at a loopback, private or link-local address';
  return undefined;
}

/**
 * Whether `ip` (a textual IPv4 or IPv6 address) is a public unicast address.
 * Anything else, including text that is not an address, is not public.
 */
export function isPublicAddress(ip: string): boolean {
  if (!ipaddr.isValid(ip)) return false;
  // process() unwraps IPv4-mapped IPv6 (::ffff:127.0.0.1), which the kernel routes as IPv4.
  const address = ipaddr.process(ip);
  // 'unicast' is ipaddr's name for "in no special range": this refuses loopback, private,
  // linkLocal (169.254.169.254, the metadata service, included), uniqueLocal,
  // carrierGradeNat, reserved, unspecified, multicast and broadcast, and also the IPv6
  // ranges that embed or tunnel to an IPv4 address we have not checked (6to4, teredo,
  // NAT64 rfc6052, rfc6145).
  if (address.range() !== 'unicast') return false;
  // IPv6 outside 2000::/3 is not allocated for global unicast (e.g. the IPv4-compatible
  // ::127.0.0.1, which ipaddr still calls 'unicast').
  return address.kind() === 'ipv4' || address.match(GLOBAL_UNICAST_V6);
}

const GLOBAL_UNICAST_V6 = ipaddr.IPv6.parseCIDR('2000::/3');

export interface SafePostOptions {
  /** WEBHOOK_ALLOW_INSECURE: allow http and non-public hosts (local stack only). */
  allowInsecure: boolean;
  /** Deadline for the whole attempt: DNS, connect, TLS, answer. */
  timeoutMs?: number;
  /** How much of the answer's body is read; the rest is discarded. */
  maxBodyBytes?: number;
  /** Name resolution, replaceable in tests (defaults to the system resolver, like every client). */
  lookup?: (hostname: string) => Promise<LookupAddress[]>;
}

export interface SafePostResult {
  /** The answer's status (a 3xx is not followed), or null when there was no answer. */
  status: number | null;
  /** Why there was no answer: 'timed out', 'refused: …', or an error code such as ECONNREFUSED. */
  error?: string;
  /** The first `maxBodyBytes` of the answer, as UTF-8 (may end in a cut character). */
  body?: string;
}

/**
 * POSTs `body` to `url` once. Never throws for a network problem: every outcome is a
 * result, so a delivery attempt can record it.
 */
export async function safePost(
  url: string,
  body: string,
  headers: Record<string, string>,
  { allowInsecure, timeoutMs = 10_000, maxBodyBytes = 4096, lookup = systemLookup }: SafePostOptions,
): Promise<SafePostResult> {
  // The same rules as at creation: a URL stored under older rules is still held to them.
  const problem = webhookUrlProblem(url, allowInsecure);
  if (problem !== undefined) return { status: null, error: `refused: url ${problem}` };
  const target = new URL(url);
  const host = hostOf(target);

  const deadline = new AbortController();
  const timer = setTimeout(() => deadline.abort(), timeoutMs);
  try {
    const addresses = await untilAborted(lookup(host), deadline.signal);
    if (addresses.length === 0) return { status: null, error: 'ENOTFOUND' };
    if (!allowInsecure && !addresses.every((a) => isPublicAddress(a.address))) {
      return { status: null, error: `refused: ${host} resolves to a non-public address` };
    }
    return await post(target, addresses, body, headers, maxBodyBytes, deadline.signal);
  } catch (err) {
    return { status: null, error: deadline.signal.aborted ? 'timed out' : reasonOf(err) };
  } finally {
    clearTimeout(timer);
  }
}

// ---------------------------------------------------------------------------------------

function parseAbsolute(url: string): URL | undefined {
  try {
    return new URL(url); // no base: relative references throw
  } catch {
    return undefined;
  }
}

const allowedSchemes = (allowInsecure: boolean) => (allowInsecure ? ['https:', 'http:'] : ['https:']);

/** The host as a resolver or socket wants it: IPv6 without brackets. */
const hostOf = (url: URL) => url.hostname.replace(/^\[(.*)\]$/, '$1');

/** Creation-time host check: literals must be public; names are checked when resolved, except localhost. */
function isPublicHost(host: string): boolean {
  if (isIP(host) !== 0) return isPublicAddress(host);
  // RFC 6761: localhost and its subdomains are loopback whatever DNS says. URL lower-cases
  // the name; a trailing dot (the root) names the same host.
  const name = host.replace(/\.+$/, '');
  return name !== 'localhost' && !name.endsWith('.localhost');
}

async function systemLookup(hostname: string): Promise<LookupAddress[]> {
  return dnsLookup(hostname, { all: true });
}

/** `promise`, or a rejection as soon as `signal` aborts (the lookup itself cannot be cancelled). */
function untilAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    if (signal.aborted) return reject(new Error('aborted'));
    const onAbort = () => reject(new Error('aborted'));
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

/**
 * A `lookup` for the socket that answers with the addresses already checked, so the
 * connection goes where the check said, while `host` stays the name (Host header, SNI,
 * certificate check).
 */
function pinnedLookup(addresses: LookupAddress[]): LookupFunction {
  return (_hostname, options, callback) => {
    // Node asks for all addresses when it races IPv4 and IPv6 (autoSelectFamily): every one was checked.
    if (options.all) callback(null, addresses);
    else callback(null, addresses[0]!.address, addresses[0]!.family);
  };
}

/** The caller's headers, without the ones that describe the transfer: those are ours to set. */
function requestHeaders(target: URL, body: string, headers: Record<string, string>): Record<string, string> {
  const own = new Set(['host', 'content-length', 'transfer-encoding', 'connection']);
  const kept = Object.entries(headers).filter(([name]) => !own.has(name.toLowerCase()));
  return {
    ...Object.fromEntries(kept),
    host: target.host, // the name (and port when not the default), brackets kept for IPv6
    'content-length': String(Buffer.byteLength(body)),
    connection: 'close',
  };
}

function post(
  target: URL,
  addresses: LookupAddress[],
  body: string,
  headers: Record<string, string>,
  maxBodyBytes: number,
  signal: AbortSignal,
): Promise<SafePostResult> {
  const host = hostOf(target);
  const options: https.RequestOptions = {
    method: 'POST',
    host,
    port: target.port === '' ? undefined : Number(target.port),
    path: `${target.pathname}${target.search}`,
    headers: requestHeaders(target, body, headers),
    lookup: pinnedLookup(addresses),
    // TLS: SNI and certificate verification against the name, not the pinned address.
    servername: isIP(host) === 0 ? host : undefined,
    agent: false, // a fresh socket each time: nothing pooled towards a customer's host
    signal, // the deadline destroys the socket, whatever stage the request is at
  };
  const client = target.protocol === 'https:' ? https : http;
  return new Promise((resolve) => {
    let answered = false;
    // Redirects are never followed: http.request does not follow them, a 3xx is just a status.
    const req = client.request(options, (res) => {
      answered = true;
      // There is an answer; the deadline still bounds reading its body (see readCapped).
      readCapped(res, maxBodyBytes).then((text) => resolve({ status: res.statusCode ?? null, body: text }));
    });
    req.on('error', (err) => {
      // After the answer, an error (deadline, reset) only cuts the body short: readCapped reports it.
      if (!answered) resolve({ status: null, error: signal.aborted ? 'timed out' : reasonOf(err) });
    });
    req.end(body);
  });
}

/**
 * At most `maxBytes` of the body, then the socket is destroyed so a huge or endless body
 * costs nothing more. A body cut short (deadline, reset) still yields what arrived: the
 * status line already answered the attempt.
 */
function readCapped(res: http.IncomingMessage, maxBytes: number): Promise<string> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const finish = () => resolve(Buffer.concat(chunks, size).toString('utf8'));
    res.on('data', (chunk: Buffer) => {
      const room = maxBytes - size;
      const part = chunk.length > room ? chunk.subarray(0, room) : chunk;
      chunks.push(part);
      size += part.length;
      if (size >= maxBytes) {
        res.socket?.destroy(); // nothing more of this answer is wanted, however much is left
        res.destroy();
        finish();
      }
    });
    res.on('end', finish);
    res.on('error', finish);
    res.on('close', finish); // covers a destroy without 'error'; resolving twice is harmless
  });
}

/** A short reason for a failed attempt: the error code (ECONNREFUSED, CERT_HAS_EXPIRED, …). */
function reasonOf(err: unknown): string {
  const error = err instanceof AggregateError && err.errors.length > 0 ? err.errors[0] : err;
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  if (typeof code === 'string' && code !== '') return code;
  const message = error instanceof Error ? error.message : String(error);
  return message.slice(0, 200);
}
