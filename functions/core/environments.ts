/** Environments (decision 27): today every organization has exactly one, env_default. */
import { environmentPath } from '../../contract/paths.js';
import { DEFAULT_ENVIRONMENT_ID, type Environment } from '../../contract/schemas.js';

export const environmentsOf = (orgCreatedAt: string): Environment[] => [
  {
    id: DEFAULT_ENVIRONMENT_ID,
    name: 'Default',
    is_default: true,
    created_at: orgCreatedAt,
    links: { self: environmentPath(DEFAULT_ENVIRONMENT_ID) },
  },
];

export const isKnownEnvironment = (id: string): boolean => id === DEFAULT_ENVIRONMENT_ID;
