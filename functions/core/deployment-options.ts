/**
 * The choices a deployment is made from: its app types and sizes (decision 41). Plain
 * data with no imports, so that the web app can list them without bundling zod or node.
 */
export const APP_TYPES = ['airflow', 'superset'] as const;
export const SIZES = ['small', 'medium', 'large'] as const;

/** Decision 41: the releases offered when APP_VERSIONS does not say (lib/config.ts reads it); the dashboard's edit form offers them. */
export const DEFAULT_APP_VERSIONS: Readonly<Record<(typeof APP_TYPES)[number], readonly string[]>> = {
  airflow: ['2.10.5', '2.11.0', '3.0.6', '3.1.3'],
  superset: ['4.1.2', '5.0.0'],
};
