/** The scopes a key may hold (docs/api.md, section 2), with no dependency, so the web app can list them without bundling zod. */
export const SCOPES = ['deployments:read', 'deployments:write', 'deployments:delete', 'operations:read', 'org:read'] as const;
