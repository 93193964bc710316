/**
 * The functions (infra/aws/functions.ts): one per module, how they are bundled, and that a bundle
 * runs as Lambda runs it.
 */
/** The functions (infra/aws/functions.ts): one per module, how they are bundled, and that a bundle runs as Lambda runs it. */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { dashboardHandlerNames } from '../../contract/dashboard-routes.js';
import { handlerNames } from '../../contract/routes.js';
import { EVENTS_FUNCTIONS, type FunctionName } from '../../infra/aws/function-access.js';
import { dataPoints, type EmfLine } from '../helpers/emf.js';
import { fnId, resourcesOfType, stageOf } from './synth.js';

const s = stageOf({ stage: 'dev' });

describe('functions', () => {
  const workflowFiles = fs
    .readdirSync(path.join(import.meta.dirname, '../../functions/workflow'))
    .filter((f) => f.endsWith('.ts'))
    .map((f) => f.slice(0, -3));
  const expected = [...handlerNames, ...dashboardHandlerNames, 'route-not-found', ...workflowFiles, ...EVENTS_FUNCTIONS].sort();

  it('are one per handler module, workflow step and events module, on Node.js 24, arm64, traced, logging JSON', () => {
    expect(s.stack.functions.all.map((f) => f.name).sort()).toEqual(expected);
    // Besides the service's own, only CDK's deploy-time functions for the dashboard's bucket (copy the app in, empty a dev bucket).
    const fns = resourcesOfType(s.json, 'AWS::Lambda::Function').filter(
      ([id]) => !id.startsWith('CustomCDKBucketDeployment') && !id.startsWith('CustomS3AutoDeleteObjects'),
    );
    expect(fns).toHaveLength(expected.length);
    for (const [, fn] of fns) {
      expect(fn.Properties).toMatchObject({
        Runtime: 'nodejs24.x',
        Architectures: ['arm64'],
        Handler: 'index.handler',
        TracingConfig: { Mode: 'Active' },
        // Lambda's advanced logging controls, which the logger follows (AWS_LAMBDA_LOG_LEVEL).
        LoggingConfig: { LogFormat: 'JSON', ApplicationLogLevel: 'DEBUG', SystemLogLevel: 'INFO', LogGroup: expect.anything() },
      });
    }
  });

  const codeDir = (name: FunctionName) => {
    const fn = s.json.Resources[fnId(s, name)]!;
    const key = String(fn.Properties?.Code.S3Key);
    return path.join(s.outdir, `asset.${key.replace(/\.zip$/, '')}`);
  };

  it('are bundled by esbuild as ES modules, with source maps, and get-docs carries the Swagger UI files', () => {
    for (const f of s.stack.functions.all) {
      const dir = codeDir(f.name);
      expect(fs.existsSync(path.join(dir, 'index.mjs'))).toBe(true);
      expect(fs.existsSync(path.join(dir, 'index.mjs.map'))).toBe(true);
      expect(s.json.Resources[fnId(s, f.name)]!.Properties?.Handler).toBe('index.handler');
    }
    const docs = codeDir('get-docs');
    expect(fs.readdirSync(path.join(docs, 'swagger-ui')).sort()).toEqual(['swagger-ui-bundle.js', 'swagger-ui.css']);
    expect(s.json.Resources[fnId(s, 'get-docs')]!.Properties?.Environment.Variables.SWAGGER_UI_DIST).toBe('/var/task/swagger-ui');
  });

  it('load and answer as Lambda runs them: a bundle imported by Node 24 serves its route through the middy stack', () => {
    // The bundle alone, outside jest and this repository's node_modules: what Lambda would import.
    const script = `
      const { handler } = await import(${JSON.stringify(path.join(codeDir('get-openapi'), 'index.mjs'))});
      const event = { httpMethod: 'GET', path: '/api/v1/openapi.json', headers: { 'X-Request-Id': 'bundle-check' }, body: null, isBase64Encoded: false };
      const context = { functionName: 'get-openapi', awsRequestId: 'r', getRemainingTimeInMillis: () => 5000 };
      const res = await handler(event, context);
      process.stdout.write(JSON.stringify({ status: res.statusCode, id: res.headers['X-Request-Id'], openapi: JSON.parse(res.body).openapi }));
    `;
    const out = execFileSync(process.execPath, ['--input-type=module', '-e', script], {
      cwd: os.tmpdir(),
      encoding: 'utf8',
      env: { PATH: process.env.PATH, LOG_LEVEL: 'silent' },
    });
    // Before the answer, the invocation's metrics, written to stdout as embedded metric format, as on Lambda.
    const lines = out.trim().split('\n');
    expect(JSON.parse(lines.at(-1)!)).toEqual({ status: 200, id: 'bundle-check', openapi: '3.1.0' });
    expect(
      lines
        .slice(0, -1)
        .map((l) => dataPoints(JSON.parse(l) as EmfLine).name)
        .sort(),
    ).toEqual(['RequestLatency', 'Requests']);
  });
});
