// The deployctl bundle (decision 168): bin/deployctl.ts and all it imports in one ES module,
// so a command starts without compiling TypeScript or resolving hundreds of files. Built at
// `npm ci` (the prepare script) and again by bin/deployctl.js whenever a source is newer.
import { mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';

const ROOT = path.resolve(import.meta.dirname, '..');
const DIR = path.join(ROOT, 'node_modules/.cache/deployctl');
export const BUNDLE = path.join(DIR, 'deployctl.mjs');
/** The files the bundle was built from (esbuild's metafile inputs), relative to the repository. */
const INPUTS = path.join(DIR, 'inputs.json');

const mtime = (file) => {
  try {
    return statSync(file).mtimeMs;
  } catch {
    return Number.NaN;
  }
};

/** Whether the bundle exists and no file it was built from changed since (a few dozen stats). */
export function bundleIsFresh() {
  const built = mtime(BUNDLE);
  if (Number.isNaN(built)) return false;
  let inputs;
  try {
    inputs = JSON.parse(readFileSync(INPUTS, 'utf8'));
  } catch {
    return false;
  }
  return inputs.every((file) => mtime(path.join(ROOT, file)) <= built);
}

export async function buildBundle() {
  const { build } = await import('esbuild');
  mkdirSync(DIR, { recursive: true });
  const result = await build({
    entryPoints: [path.join(ROOT, 'bin/deployctl.ts')],
    outfile: BUNDLE,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    metafile: true,
    write: false,
    logLevel: 'error',
    // CommonJS dependencies inside an ES module bundle call require().
    banner: { js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);" },
  });
  // Written aside and renamed: several processes may build at once (parallel tests), none reads half a file.
  const aside = (file, text) => {
    const tmp = `${file}.${process.pid}.tmp`;
    writeFileSync(tmp, text);
    renameSync(tmp, file);
  };
  aside(BUNDLE, result.outputFiles[0].contents);
  aside(INPUTS, JSON.stringify(Object.keys(result.metafile.inputs)));
}

if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(import.meta.filename)) await buildBundle();
