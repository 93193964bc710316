/**
 * Cold start per function (the benchmark's goal 3), from `cdk synth` output: each bundle's
 * bytes and import time against a floor, a bundle built with the very same esbuild
 * options (BUNDLE_OPTIONS) that only creates the AWS SDK clients the function is
 * declared to use (FUNCTION_ACCESS: the table → the DynamoDB and document clients,
 * Step Functions, SQS, KMS, Secrets Manager, Cognito), holds the commands its bundle
 * sends on them, and creates Powertools' Logger and Metrics, as every function does: what
 * the ratio judges is the service's own code (decisions 183 and 204).
 * Each import runs in a fresh Node 24 process, with the
 * NODE_OPTIONS the function gets on Lambda, right beside an import of its floor, and the
 * import ratio is the median over the runs of the two imports' CPU times (user + system):
 * on Lambda an import is CPU-bound, and on a shared machine CPU time leaves out the waits
 * for a core that wall time counts (decision 205). Wall time is shown too.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { type CfnElement, Stack } from 'aws-cdk-lib';
import { type BuildOptions, build } from 'esbuild';
import { buildApp } from '../infra/aws/app.js';
import { type FunctionAccess, usesTable } from '../infra/aws/function-access.js';
import { BUNDLE_OPTIONS, REPO_ROOT } from '../infra/aws/functions.js';
import { PLATFORM_USE, type PlatformUse } from '../infra/aws/platform/driver-grants.js';

/** Goal 3: each bundle at most this many times its floor's bytes, and its import at most this many times the floor's CPU time. */
export const COLD_START_LIMITS = { bytes: 1.25, import: 1.2 } as const;

const execFileAsync = promisify(execFile);

/** The client class of each SDK package a function may use. */
const CLIENT_CLASS: Record<string, string> = {
  '@aws-sdk/client-dynamodb': 'DynamoDBClient',
  '@aws-sdk/lib-dynamodb': 'DynamoDBDocumentClient',
  '@aws-sdk/client-sfn': 'SFNClient',
  '@aws-sdk/client-sqs': 'SQSClient',
  '@aws-sdk/client-kms': 'KMSClient',
  '@aws-sdk/client-secrets-manager': 'SecretsManagerClient',
  '@aws-sdk/client-cognito-identity-provider': 'CognitoIdentityProviderClient',
  '@aws-sdk/client-ecs': 'ECSClient',
  '@aws-sdk/client-elastic-load-balancing-v2': 'ElasticLoadBalancingV2Client',
  '@aws-sdk/client-rds-data': 'RDSDataClient',
  '@aws-sdk/client-cloudwatch-logs': 'CloudWatchLogsClient',
  '@aws-sdk/client-cloudwatch': 'CloudWatchClient',
  '@aws-sdk/client-acm': 'ACMClient',
  '@aws-sdk/client-route-53': 'Route53Client',
};

/**
 * The ECS driver's clients (functions/adapters/platform/ecs/clients.ts), all made when the
 * driver is: what a function PLATFORM_USE names uses, whatever its use.
 */
export const DRIVER_CLIENTS = [
  '@aws-sdk/client-ecs',
  '@aws-sdk/client-elastic-load-balancing-v2',
  '@aws-sdk/client-secrets-manager',
  '@aws-sdk/client-rds-data',
  '@aws-sdk/client-cloudwatch-logs',
  '@aws-sdk/client-cloudwatch',
  '@aws-sdk/client-acm',
  '@aws-sdk/client-route-53',
];

/** The clients FUNCTION_ACCESS says a function uses, and the driver's when PLATFORM_USE names it (`platformUse`). */
export function declaredClients(access: FunctionAccess, platformUse?: PlatformUse): string[] {
  const own = [
    ...(usesTable(access) ? ['@aws-sdk/client-dynamodb', '@aws-sdk/lib-dynamodb'] : []),
    ...(access.states.length ? ['@aws-sdk/client-sfn'] : []),
    ...(access.apiKeySecret ? ['@aws-sdk/client-secrets-manager'] : []),
    ...(access.queue.length ? ['@aws-sdk/client-sqs'] : []),
    ...(access.kms.length ? ['@aws-sdk/client-kms'] : []),
    ...(access.users.length ? ['@aws-sdk/client-cognito-identity-provider'] : []),
  ];
  return platformUse ? [...own, ...DRIVER_CLIENTS.filter((c) => !own.includes(c))] : own;
}

/** The SDK client packages a bundle holds, read from its source map. */
export function bundledClients(mapFile: string): string[] {
  const { sources } = JSON.parse(fs.readFileSync(mapFile, 'utf8')) as { sources: string[] };
  const found = new Set<string>();
  for (const s of sources) {
    const m = /node_modules\/(@aws-sdk\/(?:client-[a-z0-9-]+|lib-dynamodb))\//.exec(s);
    if (m) found.add(m[1]!);
  }
  return [...found].sort();
}

/**
 * The commands of the declared clients a bundle holds, read from its source map: what
 * the function sends (decision 204). Each is `[package, class]`.
 */
export function bundledCommands(mapFile: string, clients: string[]): [string, string][] {
  const { sources } = JSON.parse(fs.readFileSync(mapFile, 'utf8')) as { sources: string[] };
  return commandsIn(sources, clients);
}

/** The commands of the declared clients among a bundle's source files (its map's sources, or its metafile's inputs). */
export function commandsIn(sources: readonly string[], clients: string[]): [string, string][] {
  const found = new Map<string, [string, string]>();
  for (const s of sources) {
    const m = /node_modules\/(@aws-sdk\/(?:client-[a-z0-9-]+|lib-dynamodb))\/dist-es\/commands\/(\w+Command)\.js$/.exec(s);
    if (m && clients.includes(m[1]!)) found.set(`${m[1]} ${m[2]}`, [m[1]!, m[2]!]);
  }
  return [...found.values()].sort(([a, x], [b, y]) => a.localeCompare(b) || x.localeCompare(y));
}

/**
 * The floor's source: creates the clients and Powertools' Logger (with its buffer, as
 * functions/lib/logger.ts) and Metrics at module load, as the functions do (DESIGN
 * principle 6), and holds the commands the function sends.
 */
function floorSource(clients: string[], commands: [string, string][] = []): string {
  const classes = (c: string) => [CLIENT_CLASS[c]!, ...commands.filter(([p]) => p === c).map(([, k]) => k)];
  const imports = clients.map((c) => `import { ${classes(c).join(', ')} } from '${c}';`).join('\n');
  const made = clients.map((c) =>
    c === '@aws-sdk/lib-dynamodb' ? 'DynamoDBDocumentClient.from(new DynamoDBClient({}))' : `new ${CLIENT_CLASS[c]}({})`,
  );
  return [
    "import { Logger } from '@aws-lambda-powertools/logger';",
    "import { Metrics } from '@aws-lambda-powertools/metrics';",
    imports,
    'const logger = new Logger({ logBufferOptions: { flushOnErrorLog: true } });',
    "const metrics = new Metrics({ namespace: 'floor' });",
    `const clients = [${made.join(', ')}];`,
    `const commands = [${commands.map(([, k]) => k).join(', ')}];`,
    'export const handler = async () => [logger, metrics, clients.length, commands.length];',
    '',
  ].join('\n');
}

/** The stack's esbuild options (BUNDLE_OPTIONS) as esbuild's own API takes them: the floors and bench/bundle-bytes.ts build with these. */
export const ESBUILD_OPTIONS = {
  bundle: true,
  platform: 'node',
  minify: BUNDLE_OPTIONS.minify,
  sourcemap: BUNDLE_OPTIONS.sourceMap,
  sourcesContent: BUNDLE_OPTIONS.sourcesContent,
  target: BUNDLE_OPTIONS.target,
  format: 'esm',
  mainFields: BUNDLE_OPTIONS.mainFields,
  banner: { js: BUNDLE_OPTIONS.banner },
  nodePaths: [path.join(REPO_ROOT, 'node_modules')],
  logLevel: 'warning',
} as const satisfies BuildOptions;

/** Bundles the floor for a set of clients (and the commands sent on them) with the functions' own esbuild options. */
export async function buildFloor(clients: string[], outDir: string, commands: [string, string][] = []): Promise<string> {
  fs.mkdirSync(outDir, { recursive: true });
  const entry = path.join(outDir, 'floor.ts');
  fs.writeFileSync(entry, floorSource(clients, commands));
  const outfile = path.join(outDir, 'index.mjs');
  await build({ ...ESBUILD_OPTIONS, entryPoints: [entry], outfile });
  return outfile;
}

export interface ImportTime {
  cpuMs: number;
  wallMs: number;
}

const IMPORT_SCRIPT =
  'const c = process.cpuUsage(); const t = performance.now(); await import(process.argv[1]); ' +
  'const d = process.cpuUsage(c); process.stdout.write(JSON.stringify({ cpuMs: (d.user + d.system) / 1000, wallMs: performance.now() - t }));';

/** One import of `file` in a fresh process of this Node (npm run puts the pinned Node 24 first on PATH). */
export async function importOnce(file: string, nodeOptions: string): Promise<ImportTime> {
  const { stdout } = await execFileAsync(process.execPath, ['--input-type=module', '-e', IMPORT_SCRIPT, file], {
    cwd: os.tmpdir(),
    encoding: 'utf8',
    // What Lambda gives the process: no AWS variables are needed to load a bundle.
    env: { PATH: process.env.PATH, NODE_OPTIONS: nodeOptions, LOG_LEVEL: 'silent', AWS_REGION: 'us-east-1' },
  });
  return JSON.parse(stdout) as ImportTime;
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};

/** Two files to import side by side, each with its NODE_OPTIONS. */
export interface ImportPair {
  a: string;
  aOptions: string;
  b: string;
  bOptions: string;
}

export interface PairedImports {
  /** Median CPU and wall time of the first file's imports, and of the second's. */
  a: ImportTime;
  b: ImportTime;
  /** The median, over the runs, of the first import's CPU time over the second's taken beside it. */
  ratio: number;
}

/**
 * Imports each pair of files `runs` times, one process at a time: the two of a pair one
 * right after the other (which goes first drawn at random), the pairs' runs shuffled
 * together. What a pair is judged by is the median of its runs' ratios: a burst of other
 * work, or a core at another clock, falls on both imports of a run alike (decision 205).
 */
export async function pairedImports(pairs: ImportPair[], runs: number): Promise<PairedImports[]> {
  const queue = pairs.flatMap((pair, i) => Array.from({ length: runs }, () => ({ ...pair, i })));
  for (let k = queue.length - 1; k > 0; k--) {
    const j = Math.floor(Math.random() * (k + 1));
    [queue[k], queue[j]] = [queue[j]!, queue[k]!];
  }
  const samples = pairs.map(() => [] as { a: ImportTime; b: ImportTime }[]);
  for (const run of queue) {
    const first = Math.random() < 0.5;
    const one = first ? await importOnce(run.a, run.aOptions) : await importOnce(run.b, run.bOptions);
    const other = first ? await importOnce(run.b, run.bOptions) : await importOnce(run.a, run.aOptions);
    samples[run.i]!.push(first ? { a: one, b: other } : { a: other, b: one });
  }
  const medianOf = (xs: ImportTime[]): ImportTime => ({ cpuMs: median(xs.map((x) => x.cpuMs)), wallMs: median(xs.map((x) => x.wallMs)) });
  return samples.map((s) => ({
    a: medianOf(s.map((x) => x.a)),
    b: medianOf(s.map((x) => x.b)),
    ratio: median(s.map((x) => x.a.cpuMs / x.b.cpuMs)),
  }));
}

export interface FunctionColdStart {
  name: string;
  /** The clients it is declared to use (its floor), and the ones its bundle holds. */
  clients: string[];
  bundled: string[];
  bytes: number;
  floorBytes: number;
  nodeOptions: string;
  import: ImportTime;
  floorImport: ImportTime;
  bytesRatio: number;
  importRatio: number;
  /** Gated: it declares at least one client. One that declares none has no floor to compare with. */
  gated: boolean;
  pass: boolean;
}

export interface ColdStartResult {
  functions: FunctionColdStart[];
  synthMs: number;
  runs: number;
  /** get-deployment and its floor imported with and without --enable-source-maps (the cost of reading the map). */
  sourceMaps: { with: ImportTime; without: ImportTime; floorWith: ImportTime; floorWithout: ImportTime };
}

/** Synthesizes the app into a temporary directory and measures every function in it. */
export async function measureColdStart(o: { runs: number; only?: string[] }): Promise<ColdStartResult> {
  const outdir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-cold-start-'));
  try {
    const t0 = performance.now();
    const built = buildApp({ outdir, nag: false });
    const template = built.app.synth().getStackArtifact(built.stack.artifactId).template as {
      Resources: Record<string, { Properties: { Code: { S3Key: string }; Environment?: { Variables?: Record<string, unknown> } } }>;
    };
    const synthMs = performance.now() - t0;
    const floors = new Map<string, Promise<string>>();
    const floorOf = (clients: string[], commands: [string, string][]) => {
      const key = [clients.join('+') || 'none', ...commands.map(([, k]) => k)].join('+');
      let p = floors.get(key);
      if (!p) {
        p = buildFloor(clients, path.join(outdir, `floor-${floors.size}`), commands);
        floors.set(key, p);
      }
      return p;
    };
    const measured = await Promise.all(
      built.stack.functions.all
        .filter((f) => !o.only || o.only.includes(f.name))
        .map(async (f) => {
          const resource = template.Resources[Stack.of(f.fn).resolve((f.fn.node.defaultChild as CfnElement).logicalId) as string]!;
          const file = path.join(outdir, `asset.${resource.Properties.Code.S3Key.replace(/\.zip$/, '')}`, 'index.mjs');
          const clients = declaredClients(f.access, PLATFORM_USE[f.name]);
          const commands = bundledCommands(`${file}.map`, clients);
          const nodeOptions = String(resource.Properties.Environment?.Variables?.NODE_OPTIONS ?? '');
          return { f, file, clients, commands, floor: await floorOf(clients, commands), nodeOptions };
        }),
    );
    // Every bundle beside its floor, with its function's NODE_OPTIONS; get-deployment and its floor each with and without source maps.
    const gd = measured.find((m) => m.f.name === 'get-deployment');
    const maps = '--enable-source-maps';
    const pairs: ImportPair[] = [
      ...measured.map((m) => ({ a: m.file, aOptions: m.nodeOptions, b: m.floor, bOptions: m.nodeOptions })),
      ...(gd
        ? [
            { a: gd.file, aOptions: maps, b: gd.file, bOptions: '' },
            { a: gd.floor, aOptions: maps, b: gd.floor, bOptions: '' },
          ]
        : []),
    ];
    const times = await pairedImports(pairs, o.runs);
    const [bundleMaps, floorMaps] = gd ? times.slice(measured.length) : [];
    const functions: FunctionColdStart[] = measured.map((m, i) => {
      const bytes = fs.statSync(m.file).size;
      const floorBytes = fs.statSync(m.floor).size;
      const { a: imp, b: floorImp, ratio: importRatio } = times[i]!;
      const bytesRatio = bytes / floorBytes;
      const gated = m.clients.length > 0;
      return {
        name: m.f.name,
        clients: m.clients,
        bundled: bundledClients(`${m.file}.map`),
        bytes,
        floorBytes,
        nodeOptions: m.nodeOptions,
        import: imp,
        floorImport: floorImp,
        bytesRatio,
        importRatio,
        gated,
        pass: !gated || (bytesRatio <= COLD_START_LIMITS.bytes && importRatio <= COLD_START_LIMITS.import),
      };
    });
    const none = { cpuMs: Number.NaN, wallMs: Number.NaN };
    return {
      functions,
      synthMs,
      runs: o.runs,
      sourceMaps:
        bundleMaps && floorMaps
          ? { with: bundleMaps.a, without: bundleMaps.b, floorWith: floorMaps.a, floorWithout: floorMaps.b }
          : { with: none, without: none, floorWith: none, floorWithout: none },
    };
  } finally {
    fs.rmSync(outdir, { recursive: true, force: true });
  }
}
