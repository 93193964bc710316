/**
 * The choices a deployment is made from: its app types and sizes (decision 41). Plain
 * data with no imports, so that the web app can list them without bundling zod or node.
 */
export const APP_TYPES = ['airflow', 'superset'] as const;
export const SIZES = ['small', 'medium', 'large'] as const;
