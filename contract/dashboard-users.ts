/**
 * The dashboard's signed-in users: each belongs to one organization and has one role.
 * Their tokens are the user pool's ID tokens (Cognito on AWS, its emulation locally),
 * whose custom attributes carry the organization and the role; users cannot write them.
 */
import * as z from 'zod/mini';
import { apiError } from './errors.js';
import { ORG_ID_PATTERN, ORG_ID_RULE } from './limits.js';
import { schema } from './schemas.js';

export const DASHBOARD_ROLES = ['viewer', 'admin'] as const;
export const DashboardRole = /* @__PURE__ */ schema(() => z.enum(DASHBOARD_ROLES));
export type DashboardRole = z.infer<typeof DashboardRole>;

/** An organization id, by the rule every key issuer uses (limits.ts). */
export const OrgId = /* @__PURE__ */ schema(() => z.string().check(z.regex(ORG_ID_PATTERN, ORG_ID_RULE)));

/** The user-pool attributes that place a user, as Cognito names custom attributes. */
export const ORG_ATTRIBUTE = 'custom:org_id';
export const ROLE_ATTRIBUTE = 'custom:role';

export interface DashboardUser {
  sub: string;
  email: string;
  orgId: string;
  role: DashboardRole;
}

const Claims = /* @__PURE__ */ schema(() =>
  z.object({
    sub: z.string().check(z.minLength(1)),
    email: z.string().check(z.minLength(1)),
    [ORG_ATTRIBUTE]: OrgId,
    [ROLE_ATTRIBUTE]: DashboardRole,
  }),
);

/** The user a verified token speaks for; a token without a valid organization and role is not a dashboard token. */
export function userFromClaims(claims: Record<string, unknown>): DashboardUser {
  const parsed = Claims.safeParse(claims);
  if (!parsed.success) throw apiError('INVALID_TOKEN');
  const c = parsed.data;
  return { sub: c.sub, email: c.email, orgId: c[ORG_ATTRIBUTE], role: c[ROLE_ATTRIBUTE] };
}

/** Roles are ordered: an admin may do whatever a viewer may. */
export function checkRole(user: DashboardUser, needed: DashboardRole): void {
  if (DASHBOARD_ROLES.indexOf(user.role) < DASHBOARD_ROLES.indexOf(needed)) throw apiError('INSUFFICIENT_ROLE', { role: needed });
}
