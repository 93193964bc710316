/** How a route is authorised, in the document's terms: the API key scheme, each operation's security and its access sentence. */

import type { Access } from '../../contract/routes.js';
import type * as s from '../../contract/schemas.js';

export const SECURITY_SCHEME = 'ApiKeyAuth';

export const API_KEY_SCHEME = {
  type: 'apiKey',
  in: 'header',
  name: 'X-API-Key',
  description: 'An API key, `svc_sk_live_<token>`, from the dashboard (Organization > API Keys).',
} as const;

export function scopesOf(access: Access): readonly s.Scope[] {
  return typeof access === 'string' ? [] : access;
}

export function securityOf(access: Access): Record<string, string[]>[] {
  if (access === 'public') return [];
  if (access === 'key') return [{ [SECURITY_SCHEME]: [] }];
  return access.map((scope) => ({ [SECURITY_SCHEME]: [scope] }));
}

/** The sentence opening an operation's description: what key it needs. */
export function accessText(access: Access): string {
  if (access === 'public') return 'No API key needed.';
  if (access === 'key') return 'Needs a valid API key; no scope needed.';
  const [first, ...rest] = access;
  return `Needs an API key with scope \`${first}\`${rest.length ? ` (or ${rest.map((x) => `\`${x}\``).join(', ')})` : ''}.`;
}
