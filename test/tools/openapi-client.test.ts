/**
 * A client generated from the served document by an independent generator
 * (openapi-typescript) types the calls a program makes: a few of them are compiled
 * against it with the TypeScript compiler, strict, and mistakes the document rules out
 * must not compile (`@ts-expect-error` fails the build when the line is accepted).
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import ts from 'typescript';
import { openApiJson } from '../../functions/docs/openapi-document.js';
import { runProcess } from '../helpers/run-process.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
const GENERATOR = path.join(ROOT, 'node_modules/openapi-typescript/bin/cli.js');

/** Typed calls, as a program using the generated types would write them. */
const CALLS = `
import type { components, paths } from './api';

type Json<T> = T extends { content: { 'application/json': infer B } } ? B : never;

// POST /deployments: the body, and the 202's operation id.
type Create = paths['/api/v1/deployments']['post'];
const body: Json<Create['requestBody']> = {
  app_type: 'airflow',
  name: 'etl-prod',
  config: { size: 'small', env: { API_URL: { value: 'https://example.com' }, TOKEN: { value: 's3cret', secret: true } } },
};
// @ts-expect-error app_type is airflow or superset
const wrongApp: Json<Create['requestBody']> = { app_type: 'jupyter' };
declare const accepted: Json<Create['responses'][202]>;
const operationId: string = accepted.data.operation_id;
const createKey: Create['parameters']['header'] = { 'Idempotency-Key': 'create-etl-prod' };

// GET /operations/{operation_id}: its status is one of five.
type GetOperation = paths['/api/v1/operations/{operation_id}']['get'];
const opPath: GetOperation['parameters']['path'] = { operation_id: operationId };
declare const operation: Json<GetOperation['responses'][200]>;
const status: 'queued' | 'running' | 'succeeded' | 'failed' | 'canceled' = operation.data.status;
// A 404 names its code.
declare const missing: Json<GetOperation['responses'][404]>;
const code: 'OPERATION_NOT_FOUND' = missing.error.code;
// @ts-expect-error a 404 of this operation is never DEPLOYMENT_NOT_FOUND
const wrongCode: 'DEPLOYMENT_NOT_FOUND' = missing.error.code;

// GET /events?resource_id=…: the filters and paging are typed.
type ListEvents = paths['/api/v1/events']['get'];
const query: ListEvents['parameters']['query'] = { resource_id: operationId, type: 'operation.updated', page: 1, per_page: 100 };
// @ts-expect-error per_page is an integer
const wrongQuery: ListEvents['parameters']['query'] = { per_page: '100' };
declare const events: Json<ListEvents['responses'][200]>;
const sequences: number[] = events.data.items.map((e: components['schemas']['Event']) => e.sequence);

// PATCH /deployments/{deployment_id}: a JSON merge patch, with If-Match.
type Update = paths['/api/v1/deployments/{deployment_id}']['patch'];
const patch: Update['requestBody']['content']['application/merge-patch+json'] = {
  config: { size: 'large', env: { TOKEN: null, API_URL: { value: 'https://example.org' } } },
};
// @ts-expect-error a patch names only config
const wrongPatch: Update['requestBody']['content']['application/merge-patch+json'] = { app_type: 'superset' };
const update: { path: Update['parameters']['path']; query: Update['parameters']['query']; header: Update['parameters']['header'] } = {
  path: { deployment_id: accepted.data.deployment_id },
  query: { dry_run: true },
  header: { 'If-Match': '"3"' },
};
// @ts-expect-error dry_run is a boolean, not the string a query carries
const wrongDryRun: Update['parameters']['query'] = { dry_run: 'true' };
// An operation's phase is one of the phases, as the wait route's is.
const phase: 'queued' | 'provisioning_db' | 'updated' | (string & {}) = operation.data.progress.phase;
type Wait = paths['/api/v1/operations/{operation_id}/wait']['get'];
const samePhase: NonNullable<NonNullable<Wait['parameters']['query']>['phase']> = operation.data.progress.phase;
// @ts-expect-error no phase is called "cooking"
const wrongPhase: typeof operation.data.progress.phase = 'cooking';

export const calls = { body, wrongApp, createKey, opPath, status, code, wrongCode, query, wrongQuery, sequences, patch, wrongPatch, update, wrongDryRun, phase, samePhase, wrongPhase };
`;

describe('a client generated from the OpenAPI document (openapi-typescript)', () => {
  it('types creating a deployment, reading an operation, listing events by resource and a merge patch', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'openapi-client-'));
    writeFileSync(path.join(dir, 'openapi.json'), openApiJson());
    const generated = await runProcess(
      process.execPath,
      [GENERATOR, path.join(dir, 'openapi.json'), '--output', path.join(dir, 'api.ts')],
      {
        env: { ...process.env, NO_COLOR: '1' },
        timeoutMs: 120_000,
      },
    );
    expect({ code: generated.code, stderr: generated.stderr.replace(/.*openapi-typescript.*\n?/g, '').trim() }).toEqual({
      code: 0,
      stderr: '',
    });
    writeFileSync(path.join(dir, 'calls.ts'), CALLS);

    const program = ts.createProgram([path.join(dir, 'calls.ts')], {
      strict: true,
      noEmit: true,
      target: ts.ScriptTarget.ES2022,
      module: ts.ModuleKind.ESNext,
      moduleResolution: ts.ModuleResolutionKind.Bundler,
      skipLibCheck: true,
      types: [],
    });
    const problems = ts
      .getPreEmitDiagnostics(program)
      .map(
        (d) =>
          `${d.file ? path.basename(d.file.fileName) : ''}:${(d.file?.getLineAndCharacterOfPosition(d.start ?? 0).line ?? -1) + 1} ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`,
      );
    expect(problems).toEqual([]);
  }, 180_000);
});
