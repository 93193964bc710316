/** The example records of the document: one per schema that has one, and the list pages built from them. */
import * as z from 'zod';
import { API_PREFIX, deploymentPath, environmentPath, operationPath } from '../core/paths.js';
import * as s from '../core/schemas.js';

const AT = '2026-11-22T06:40:00.000Z';
const DEP_ID = '3f2b8c1e-6d4a-4e7b-9a51-0c8d2e7f4a10';
const OP_ID = 'op_8a1d2c3b-4e5f-4a6b-8c7d-9e0f1a2b3c4d';

/** The request id of the example error bodies. */
export const EXAMPLE_REQUEST_ID = 'req_5d0f1c2b3a4e4f6a8b9c0d1e2f3a4b5c';

const EXAMPLES = new Map<z.ZodType, unknown>([
  [
    s.Deployment,
    {
      id: DEP_ID,
      name: 'airflow-3fa9c2',
      app_type: 'airflow',
      status: 'ready',
      url: `https://airflow.${DEP_ID}.apps.example.com`,
      environment_id: s.DEFAULT_ENVIRONMENT_ID,
      created_at: AT,
      links: { self: deploymentPath(DEP_ID), operation: operationPath(OP_ID) },
    } satisfies s.Deployment,
  ],
  [
    s.Operation,
    {
      id: OP_ID,
      type: 'deployment.create',
      status: 'running',
      progress: { phase: 'provisioning_db', message: 'Provisioning the database.' },
      resource: { type: 'deployment', id: DEP_ID },
      requested_at: AT,
      started_at: '2026-11-22T06:40:01.000Z',
      links: { self: operationPath(OP_ID), resource: deploymentPath(DEP_ID) },
    } satisfies s.Operation,
  ],
  [
    s.Environment,
    {
      id: s.DEFAULT_ENVIRONMENT_ID,
      name: 'Default',
      is_default: true,
      created_at: AT,
      links: { self: environmentPath(s.DEFAULT_ENVIRONMENT_ID) },
    } satisfies s.Environment,
  ],
  [
    s.ApiKeyInfo,
    {
      id: 'key_1a2b3c4d5e6f7a8b9c0d',
      name: 'ci',
      org_id: 'org-1234',
      scopes: [...s.SCOPES],
      expires_at: null,
      created_at: AT,
      hint: 'svc_sk_live_…abcd',
      last_used_at: '2026-11-22T06:39:58.000Z',
    } satisfies s.ApiKeyInfo,
  ],
  [
    s.Accepted,
    {
      deployment_id: DEP_ID,
      operation_id: OP_ID,
      links: { deployment: deploymentPath(DEP_ID), operation: operationPath(OP_ID) },
    } satisfies s.Accepted,
  ],
  [s.CreateDeploymentBody, { app_type: 'airflow', name: 'analytics' } satisfies s.CreateDeploymentBody],
  [s.CreateAppUserBody, { username: 'ada', email: 'ada@example.com', role: 'editor' } satisfies s.CreateAppUserBody],
  [s.EmptyBody, {}],
]);

/** The example of a schema, when it has one. */
export const exampleOf = (schema: z.ZodType): unknown => EXAMPLES.get(schema);

/** The example of a route's `data`: the schema's own, or a one-item list page of one (its links on `path`). */
export function dataExampleOf(schema: z.ZodType, path: string): unknown {
  if (EXAMPLES.has(schema)) return EXAMPLES.get(schema);
  if (schema instanceof z.ZodObject && schema.shape.items instanceof z.ZodArray && 'pagination' in schema.shape) {
    const item = dataExampleOf(schema.shape.items.element as z.ZodType, path);
    if (item === undefined) return undefined;
    const at = (page: number) => `${API_PREFIX}${path}?page=${page}&per_page=${s.PAGE_SIZE_DEFAULT}`;
    return {
      items: [item],
      pagination: { page: 1, per_page: s.PAGE_SIZE_DEFAULT, total: 1, pages: 1 },
      links: { self: at(1), first: at(1), last: at(1), next: null, prev: null },
    };
  }
  return undefined;
}
