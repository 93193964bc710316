/**
 * Errors logged from a bundle point at the sources (functions/lib/source-stack.ts): a
 * minified bundle built with esbuild, as the stack builds each function, has its frames
 * mapped through its source map. In the tools lane: it runs esbuild (test/unit/logger.test.ts
 * has the rest of the logger).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import { sourceStack } from '../../functions/lib/source-stack.js';

describe('sourceStack', () => {
  it("points a bundle's frames at the sources through its map, and leaves frames without a map alone", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'source-stack-'));
    try {
      fs.writeFileSync(path.join(dir, 'thrower.ts'), "export function fail(): Error {\n  return new Error('boom');\n}\n");
      const outfile = path.join(dir, 'bundle.mjs');
      await build({ entryPoints: [path.join(dir, 'thrower.ts')], outfile, bundle: true, minify: true, format: 'esm', sourcemap: true });
      // The frame V8 writes for the `new Error` of the minified bundle (line 1), as a URL and as a path.
      const column = fs.readFileSync(outfile, 'utf8').indexOf('new Error') + 1;
      const source = `${path.join(dir, 'thrower.ts')}:2:10`;
      expect(sourceStack(`Error: boom\n    at r (${pathToFileURL(outfile).href}:1:${column})`)).toBe(`Error: boom\n    at r (${source})`);
      expect(sourceStack(`    at ${outfile}:1:${column}`)).toBe(`    at ${source}`);
      const unmapped = '    at f (/nowhere/x.js:1:2)';
      expect(sourceStack(unmapped)).toBe(unmapped);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
