/**
 * The layers of functions/ point one way (docs/architecture.md, "Layers"): an import
 * may only reach a lower layer, or its own folder. The core imports nothing but itself,
 * zod and Node's built-ins.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

const FUNCTIONS = path.resolve(import.meta.dirname, '../../functions');

/** Lower numbers are lower layers. */
const RANK: Record<string, number> = {
  core: 0,
  lib: 1,
  adapters: 2,
  app: 3,
  routes: 4,
  middleware: 5,
  docs: 5,
  http: 6,
  events: 6,
  workflow: 6,
};

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sourceFiles(path.join(dir, e.name)) : e.name.endsWith('.ts') ? [path.join(dir, e.name)] : [],
  );
}

/** The top folder under functions/; routes.ts, dashboard-routes.ts, router.ts and route-io.ts (the route tables, their matcher and their callers' types) are one layer. */
function layerOf(file: string): string {
  const top = path.relative(FUNCTIONS, file).split(path.sep)[0]!;
  return [
    'routes.ts',
    'routes.js',
    'router.ts',
    'router.js',
    'dashboard-routes.ts',
    'dashboard-routes.js',
    'route-io.ts',
    'route-io.js',
  ].includes(top)
    ? 'routes'
    : top;
}

function importsOf(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  return [...text.matchAll(/(?:^|\n)\s*(?:import|export)[^'"]*?from\s*'([^']+)'|import\(\s*'([^']+)'\s*\)/g)].map((m) => (m[1] ?? m[2])!);
}

const files = sourceFiles(FUNCTIONS);

describe('the layers of functions/', () => {
  it('know every top-level folder and file', () => {
    expect([...new Set(files.map(layerOf))].filter((l) => RANK[l] === undefined)).toEqual([]);
  });

  it('import only downward, or within their own folder', () => {
    const upward: string[] = [];
    for (const file of files) {
      const from = layerOf(file);
      for (const spec of importsOf(file).filter((s) => s.startsWith('.'))) {
        const to = layerOf(path.resolve(path.dirname(file), spec));
        if (to !== from && !(RANK[to]! < RANK[from]!)) upward.push(`${path.relative(FUNCTIONS, file)} → ${spec}`);
      }
    }
    expect(upward).toEqual([]);
  });

  it('keep the core free of the SDK, middy and everything else outside it', () => {
    const outside: string[] = [];
    for (const file of files.filter((f) => layerOf(f) === 'core')) {
      for (const spec of importsOf(file)) {
        // zod/mini is zod's tree-shakable API, zod/locales its English messages (core/schemas.ts says why);
        // croner parses cron expressions, pure as zod is (core/hibernation-schedule.ts).
        const allowed =
          spec.startsWith('node:') ||
          ['zod', 'zod/mini', 'zod/locales', 'croner'].includes(spec) ||
          (spec.startsWith('./') && !spec.includes('..'));
        if (!allowed) outside.push(`${path.relative(FUNCTIONS, file)} → ${spec}`);
      }
    }
    expect(outside).toEqual([]);
  });
});
