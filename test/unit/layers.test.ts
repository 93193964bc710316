/**
 * The layers point one way (docs/architecture.md, "Layers"; decision 210): an import may
 * only reach a lower layer, or its own. contract/ is the lowest, what the service shares
 * with its callers and its deployment: it imports nothing but itself, zod and Node's
 * built-ins. functions/ stacks its folders on it, the core first. The callers (client/,
 * dashboard/, the stack in infra/, bin/) import contract/, never functions/; only a host
 * that runs the functions (local, local/) may.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

const ROOT = path.resolve(import.meta.dirname, '../..');

/** Lower numbers are lower layers: contract/, then each top folder of functions/. */
const RANK: Record<string, number> = {
  contract: 0,
  'functions/core': 1,
  'functions/lib': 2,
  'functions/adapters': 3,
  'functions/app': 4,
  'functions/middleware': 5,
  'functions/docs': 5,
  'functions/http': 6,
  'functions/events': 6,
  'functions/workflow': 6,
};

/** The callers of the service: they may import contract/, never functions/. */
const CALLERS = ['client', 'dashboard', 'infra', 'bin'];
/** Hosts that run the functions in-process (the local stack): they compose functions' modules. */
const HOSTS = ['local', 'local'];

function sourceFiles(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sourceFiles(path.join(dir, e.name)) : /\.(ts|tsx|mts)$/.test(e.name) ? [path.join(dir, e.name)] : [],
  );
}

const rel = (file: string) => path.relative(ROOT, file).split(path.sep).join('/');

/** contract/ is one layer (its subfolders too); in functions/, each top folder is one, and a file loose at its root is none. */
function layerOf(file: string): string {
  const [top, sub, ...rest] = rel(file).split('/');
  if (top === 'contract') return 'contract';
  if (top === 'functions') return rest.length ? `functions/${sub}` : `functions/${sub} (a file at the root of functions/)`;
  return top!;
}

function importsOf(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  return [...text.matchAll(/(?:^|\n)\s*(?:import|export)[^'"]*?from\s*'([^']+)'|import\(\s*'([^']+)'\s*\)/g)].map((m) => (m[1] ?? m[2])!);
}

/** The repository-relative path an import names (relative imports only). */
const target = (file: string, spec: string) => rel(path.resolve(path.dirname(file), spec));

/** Each relative import that goes up a layer, or into functions/ from a layer that is not functions'. */
function upwardImports(files: readonly string[]): string[] {
  const upward: string[] = [];
  for (const file of files) {
    const from = layerOf(file);
    for (const spec of importsOf(file).filter((s) => s.startsWith('.'))) {
      const to = layerOf(path.join(ROOT, target(file, spec)));
      if (to !== from && !(RANK[to]! < RANK[from]!)) upward.push(`${rel(file)} → ${spec}`);
    }
  }
  return upward;
}

/** Imports outside `allowed`: packages, Node's built-ins, and relative imports (by the path they reach). */
function importsOutside(files: readonly string[], allowed: (spec: string, reaches: string | undefined) => boolean): string[] {
  return files.flatMap((file) =>
    importsOf(file)
      .filter((spec) => !allowed(spec, spec.startsWith('.') ? target(file, spec) : undefined))
      .map((spec) => `${rel(file)} → ${spec}`),
  );
}

// zod/mini is zod's tree-shakable API, zod/locales its English messages (contract/schemas.ts says why).
const ZOD = ['zod', 'zod/mini', 'zod/locales'];
const isBuiltin = (spec: string) => spec.startsWith('node:');

const layered = [...sourceFiles(path.join(ROOT, 'contract')), ...sourceFiles(path.join(ROOT, 'functions'))];
const within = (dir: string) => (reaches: string | undefined) =>
  reaches !== undefined && (reaches === dir || reaches.startsWith(`${dir}/`));

describe('the layers of contract/ and functions/', () => {
  it('know every folder, and no file sits loose at the root of functions/', () => {
    expect([...new Set(layered.map(layerOf))].filter((l) => RANK[l] === undefined)).toEqual([]);
  });

  it('import only downward, or within their own layer', () => {
    expect(upwardImports(layered)).toEqual([]);
  });

  it('keep contract/ free of everything but itself, zod and Node built-ins', () => {
    const contract = layered.filter((f) => layerOf(f) === 'contract');
    expect(contract.length).toBeGreaterThan(10);
    expect(importsOutside(contract, (spec, reaches) => ZOD.includes(spec) || isBuiltin(spec) || within('contract')(reaches))).toEqual([]);
  });

  it('keep the core free of the SDK, middy and everything else but contract/ and pure libraries', () => {
    const core = layered.filter((f) => layerOf(f) === 'functions/core');
    // croner parses cron expressions, pure as zod is (core/hibernation-schedule.ts).
    const pure = (spec: string) => ZOD.includes(spec) || spec === 'croner' || isBuiltin(spec);
    expect(importsOutside(core, (spec, reaches) => pure(spec) || within('functions/core')(reaches) || within('contract')(reaches))).toEqual(
      [],
    );
  });
});

describe('the callers of the service', () => {
  const isHost = (file: string) => HOSTS.some((h) => within(h)(rel(file)));
  const callers = CALLERS.flatMap((dir) => sourceFiles(path.join(ROOT, dir))).filter((f) => !isHost(f));

  it('include the client, the dashboard, the stack and the command lines', () => {
    for (const dir of CALLERS) expect(callers.some((f) => rel(f).startsWith(`${dir}/`))).toBe(true);
  });

  it('import contract/, never functions/ (a host that runs the functions may)', () => {
    expect(importsOutside(callers, (_, reaches) => !within('functions')(reaches))).toEqual([]);
  });
});

describe('the layer check', () => {
  const at = (p: string) => path.join(ROOT, p);
  // What the real files would be if they imported so: the check reads the path, not the file.
  const upward = (from: string, spec: string) => {
    const layer = layerOf(at(from));
    const to = layerOf(path.join(ROOT, target(at(from), spec)));
    return to !== layer && !(RANK[to]! < RANK[layer]!);
  };

  it('refuses contract/ reaching into functions/, and the core reaching above itself', () => {
    expect(upward('contract/routes.ts', '../functions/core/operations.js')).toBe(true);
    expect(upward('contract/table/entities.ts', '../../functions/adapters/dynamo/client.js')).toBe(true);
    expect(upward('functions/core/operations.ts', '../lib/config.js')).toBe(true);
  });

  it('lets functions/ reach contract/, and a layer reach below itself', () => {
    expect(upward('functions/core/operations.ts', '../../contract/vocabulary.js')).toBe(false);
    expect(upward('functions/http/get-deployment.ts', '../app/deployments.js')).toBe(false);
  });

  it('places a file loose at the root of functions/ in no layer', () => {
    expect(RANK[layerOf(at('functions/routes.ts'))]).toBeUndefined();
  });
});
