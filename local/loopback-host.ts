/**
 * The local servers answer only requests addressed to this machine by a name no one else
 * can point at it. A web page on an attacker's name that resolves to 127.0.0.1 (DNS
 * rebinding) is same-origin with itself, so the browser lets it read every answer; the
 * Host header is the one thing that still names the attacker's domain. Refused: any name
 * but `localhost` and HOST. Accepted: `localhost`, an address literal the request
 * actually reached (127.0.0.1 and [::1], or the address HOST exposes: no DNS involved),
 * and HOST as configured. Subdomains of localhost are refused too: nothing needs them,
 * and some resolvers send them to DNS.
 */
import type http from 'node:http';
import { isIP } from 'node:net';
import { apiError } from '../contract/errors.js';
import { errorEnvelope, requestIdFrom } from '../functions/middleware/responses.js';

const LOOPBACK = new Set(['localhost', '127.0.0.1', '::1']);

/** The host of a Host header without its port and brackets, lower-cased; undefined when it has none. */
export function hostName(header: string | undefined): string | undefined {
  if (!header) return undefined;
  const bracketed = /^\[([^\]]+)\](?::\d+)?$/.exec(header);
  if (bracketed) return bracketed[1]!.toLowerCase();
  const plain = /^([^:]+)(?::\d+)?$/.exec(header)?.[1];
  return plain?.toLowerCase().replace(/\.$/, '');
}

/** An IPv4 client on a dual-stack socket shows as ::ffff:a.b.c.d. */
const unmapped = (address: string | undefined) => address?.replace(/^::ffff:(?=\d+\.\d+\.\d+\.\d+$)/i, '');

export function isAllowedHost(header: string | undefined, localAddress: string | undefined, configuredHost: string | undefined): boolean {
  const name = hostName(header);
  if (!name) return false;
  if (LOOPBACK.has(name) || name === configuredHost?.toLowerCase()) return true;
  return isIP(name) !== 0 && name === unmapped(localAddress)?.toLowerCase();
}

/**
 * Answers a request with a foreign Host with 421 Misdirected Request in the API's error
 * envelope, and returns true; returns false for a request this server may answer.
 */
export function refusedForeignHost(req: http.IncomingMessage, res: http.ServerResponse, configuredHost?: string): boolean {
  if (isAllowedHost(req.headers.host, req.socket.localAddress, configuredHost)) return false;
  const given = req.headers['x-request-id'];
  const answer = errorEnvelope(apiError('MISDIRECTED_REQUEST'), requestIdFrom(Array.isArray(given) ? given[0] : given));
  // The body is not read: close the connection rather than leave it to be drained.
  res.writeHead(answer.statusCode, { ...answer.headers, Connection: 'close' });
  res.end(answer.body);
  return true;
}
