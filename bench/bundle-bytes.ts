/**
 * The bytes half of the cold-start goal in seconds, without `cdk synth` or import timing:
 * each function's bundle built with the stack's esbuild options (BUNDLE_OPTIONS) beside
 * its floor (bench/cold-start.ts), both sizes exact and their ratio. Bytes are
 * deterministic, so this needs no quiet machine; `npm run bench` stays the gate.
 *
 *   npx tsx bench/bundle-bytes.ts                        every function
 *   npx tsx bench/bundle-bytes.ts rollback-deployment    some, by name
 *   BUNDLE_TOP=30 npx tsx bench/bundle-bytes.ts get-key  and each one's 30 largest inputs
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { build } from 'esbuild';
import { FUNCTION_ACCESS, type FunctionName } from '../infra/aws/function-access.js';
import { entryOf, externalModulesOf, REPO_ROOT } from '../infra/aws/functions.js';
import { PLATFORM_USE } from '../infra/aws/platform/driver-grants.js';
import type { FunctionKind } from '../infra/function-limits.js';
import { buildFloor, COLD_START_LIMITS, commandsIn, declaredClients, ESBUILD_OPTIONS } from './cold-start.js';

const KINDS: FunctionKind[] = ['http', 'workflow', 'events'];
const kindOf = (name: string): FunctionKind => {
  const kind = KINDS.find((k) => fs.existsSync(entryOf(k, name)));
  if (!kind) throw new Error(`no module functions/{${KINDS.join(',')}}/${name}.ts`);
  return kind;
};

async function measure(name: FunctionName, outDir: string, top: number) {
  const outfile = path.join(outDir, name, 'index.mjs');
  const result = await build({
    ...ESBUILD_OPTIONS,
    entryPoints: [entryOf(kindOf(name), name)],
    outfile,
    external: externalModulesOf(name),
    metafile: true,
  });
  const clients = declaredClients(FUNCTION_ACCESS[name], PLATFORM_USE[name]);
  const output = Object.values(result.metafile.outputs).find((o) => o.entryPoint);
  // What the bundle holds: the inputs esbuild read but shook out entirely have no bytes in it.
  const inputs = Object.entries(output?.inputs ?? {}).flatMap(([file, { bytesInOutput }]) => (bytesInOutput > 0 ? [file] : []));
  const floor = clients.length ? await buildFloor(clients, path.join(outDir, `${name}-floor`), commandsIn(inputs, clients)) : undefined;
  const bytes = fs.statSync(outfile).size;
  const floorBytes = floor ? fs.statSync(floor).size : Number.NaN;
  const largest = Object.entries(output?.inputs ?? {})
    .map(([file, { bytesInOutput }]) => ({ file, bytesInOutput }))
    .sort((a, b) => b.bytesInOutput - a.bytesInOutput)
    .slice(0, top);
  return { name, bytes, floorBytes, ratio: bytes / floorBytes, largest };
}

const names = (process.argv.slice(2).length ? process.argv.slice(2) : Object.keys(FUNCTION_ACCESS)) as FunctionName[];
const top = Number(process.env.BUNDLE_TOP ?? 0);
const outDir = fs.mkdtempSync(path.join(os.tmpdir(), 'bundle-bytes-'));
try {
  let worst = 0;
  for (const name of names) {
    const m = await measure(name, outDir, top);
    if (Number.isFinite(m.ratio)) worst = Math.max(worst, m.ratio);
    console.log(`${name.padEnd(31)} ${String(m.bytes).padStart(8)} ${String(m.floorBytes).padStart(8)}  ${m.ratio.toFixed(3)}×`);
    for (const l of m.largest)
      console.log(`    ${String(l.bytesInOutput).padStart(8)}  ${path.relative(REPO_ROOT, path.resolve(REPO_ROOT, l.file))}`);
  }
  console.log(`largest ratio ${worst.toFixed(3)}× (gate ${COLD_START_LIMITS.bytes}×)`);
} finally {
  fs.rmSync(outDir, { recursive: true, force: true });
}
