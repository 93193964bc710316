/**
 * What a function's bundle holds, built as the stack builds it (BUNDLE_OPTIONS): only its
 * own route and schemas, only the middleware its route runs, none of the text only the
 * documents read (decisions 201-203), and no JWT library (decision 200). The cold-start
 * goal is measured by `npm run bench`; this keeps what it rests on from slipping back.
 */
import { execFileSync, execSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import { dashboardRouteList } from '../../contract/dashboard-routes.js';
import { routeList } from '../../contract/routes.js';
import type { FunctionName } from '../../infra/aws/function-access.js';
import { BUNDLE_OPTIONS, externalModulesOf, LAZY_MODULES, lazyModuleCopies, REPO_ROOT } from '../../infra/aws/functions.js';

async function bundle(handler: string, external: string[] = [], kind = 'http') {
  const result = await build({
    entryPoints: [path.join(REPO_ROOT, 'functions', kind, `${handler}.ts`)],
    external,
    bundle: true,
    write: false,
    metafile: true,
    platform: 'node',
    format: 'esm',
    minify: BUNDLE_OPTIONS.minify,
    target: BUNDLE_OPTIONS.target,
    mainFields: BUNDLE_OPTIONS.mainFields,
    outfile: path.join(REPO_ROOT, 'cdk.out', 'bundle-contents', 'index.mjs'),
    logLevel: 'silent',
  });
  const inputs = Object.keys(result.metafile.inputs);
  // What esbuild read but shook out entirely is not in the bundle: no bytes of it in the output.
  const output = Object.values(result.metafile.outputs).find((o) => o.entryPoint);
  const kept = Object.entries(output?.inputs ?? {}).flatMap(([file, { bytesInOutput }]) => (bytesInOutput > 0 ? [file] : []));
  return {
    text: result.outputFiles[0]!.text,
    holds: (part: string) => inputs.some((i) => i.includes(part)),
    holdsOutput: (part: string) => kept.some((i) => i.includes(part)),
  };
}

const otherHandlers = (own: string) => [...routeList, ...dashboardRouteList].map((r) => r.handler).filter((h) => h !== own);

it("holds a read's own route only, and none of the body's steps or the documents' text", async () => {
  const { text, holds } = await bundle('get-deployment');
  expect(text).toContain('"get-deployment"');
  for (const other of otherHandlers('get-deployment')) expect({ other, held: text.includes(`"${other}"`) }).toEqual({ other, held: false });
  for (const part of ['middleware/body-route.ts', 'middleware/idempotency.ts', 'middleware/body-guard.ts', 'middleware/json-body.ts'])
    expect({ part, held: holds(part) }).toEqual({ part, held: false });
  for (const part of ['functions/docs/', 'adapters/dynamo/entity-docs.ts', 'adapters/platform/'])
    expect({ part, held: holds(part) }).toEqual({ part, held: false });
});

it('holds no response schema: only the documents and the client read them (decision 295)', async () => {
  for (const handler of ['rollback-deployment', 'dashboard-rollback-deployment', 'get-deployment']) {
    const { text, holds } = await bundle(handler);
    for (const part of ['contract/responses.ts', 'contract/dashboard-responses.ts'])
      expect({ handler, part, held: holds(part) }).toEqual({ handler, part, held: false });
    // Descriptions of the deployment record and of the dry run's answer, which only a response schema holds.
    for (const words of ['Present only while status is ready.', '1 at creation; each applied update adds one'])
      expect({ handler, words, held: text.includes(words) }).toEqual({ handler, words, held: false });
  }
});

it("holds a write's body steps and Idempotency-Key claim", async () => {
  const { holds } = await bundle('create-deployment');
  for (const part of ['middleware/body-route.ts', 'middleware/idempotency.ts', 'middleware/body-guard.ts', 'middleware/json-body.ts'])
    expect({ part, held: holds(part) }).toEqual({ part, held: true });
});

it('holds a dashboard function’s own route and schemas, and no JWT library', async () => {
  const { text, holds } = await bundle('dashboard-list-keys');
  for (const other of otherHandlers('dashboard-list-keys'))
    expect({ other, held: text.includes(`"${other}"`) }).toEqual({ other, held: false });
  for (const part of ['aws-jwt-verify', 'node_modules/jose/']) expect({ part, held: holds(part) }).toEqual({ part, held: false });
  // The schemas of the other dashboard routes stay out: key creation's body, for one.
  expect(text).not.toContain('must not repeat a scope');
});

it("holds the ECS driver's SDK clients only where the function calls the driver (PLATFORM_USE)", async () => {
  // The writers reach the driver's module for its cancel (deployment-commands.ts), yet only
  // cancel and destroy call it; the others must shake the driver and its clients out.
  for (const handler of ['create-deployment', 'update-deployment', 'rollback-deployment', 'change-hibernation', 'get-deployment']) {
    const { holdsOutput } = await bundle(handler);
    for (const part of [
      '@aws-sdk/client-ecs/',
      '@aws-sdk/client-elastic-load-balancing-v2/',
      '@aws-sdk/client-route-53/',
      'adapters/platform/ecs/ecs-platform.ts',
    ])
      expect({ handler, part, held: holdsOutput(part) }).toEqual({ handler, part, held: false });
  }
  // …while a function that cancels a phase's work does hold them.
  const { holdsOutput } = await bundle('cancel-operation');
  expect(holdsOutput('@aws-sdk/client-ecs/')).toBe(true);
});

it('leaves the cron parser out of the writers that check schedules and of the scheduler, and loads it from the asset when needed (decision 320)', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lazy-croner-'));
  try {
    for (const handler of Object.keys(LAZY_MODULES) as FunctionName[]) {
      // The scheduler is a workflow function; the writers are HTTP handlers.
      const kind = handler === 'run-hibernation-schedule' ? 'workflow' : undefined;
      const { text, holdsOutput } = await bundle(handler, externalModulesOf(handler), kind);
      expect({ handler, croner: holdsOutput('node_modules/croner/'), dynamic: text.includes('import("croner")') }).toEqual({
        handler,
        croner: false,
        dynamic: true,
      });
      // No static import: the function loads without it.
      expect(text).not.toMatch(/import\s*\{[^}]*\}\s*from\s*"croner"|import\s*"croner"/);
    }
    expect(Object.keys(LAZY_MODULES)).toContain('run-hibernation-schedule');
    // The check, bundled as the writers are, with croner copied into node_modules beside it as the stack copies it.
    const entry = path.join(dir, 'entry.ts');
    fs.writeFileSync(
      entry,
      `export { cronProblem } from ${JSON.stringify(path.join(REPO_ROOT, 'functions/core/hibernation-schedule.ts'))};\n`,
    );
    await build({
      entryPoints: [entry],
      bundle: true,
      platform: 'node',
      format: 'esm',
      outfile: path.join(dir, 'index.mjs'),
      external: externalModulesOf('create-deployment'),
      logLevel: 'silent',
    });
    // The very commands the stack runs after bundling (FunctionFactory's afterBundling).
    for (const command of lazyModuleCopies('create-deployment', dir)) execSync(command);
    expect(fs.readdirSync(path.join(dir, 'node_modules/croner'))).toEqual(['dist', 'package.json']);
    // In a Node process of its own (jest loads no ES module), from a folder with no other node_modules on its way up.
    const script = `const { cronProblem } = await import(process.argv[1]); console.log(JSON.stringify([await cronProblem('0 19 * * 1-5'), await cronProblem('*/70 * * * *')]));`;
    const out = execFileSync(process.execPath, ['--input-type=module', '-e', script, pathToFileURL(path.join(dir, 'index.mjs')).href], {
      cwd: dir,
      encoding: 'utf8',
    });
    const [good, bad] = JSON.parse(out) as [string | null, string | null];
    expect(good).toBeNull();
    expect(bad).toContain('not a valid cron expression (CronPattern');
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
