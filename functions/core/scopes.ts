/** Spec 5.3's scopes, with no dependency, so the web app can list them without bundling zod. */
export const SCOPES = ['deployments:read', 'deployments:write', 'deployments:delete', 'operations:read', 'org:read'] as const;
