/**
 * Points a logged stack trace at the TypeScript sources, reading a bundle's source map
 * only when an error is logged. Node's `--enable-source-maps` does the same for every
 * stack, but reads each module's map as the module loads: about 30 ms of CPU added to
 * every cold start (docs/deploy.md), for stacks that are rarely printed.
 */
import fs from 'node:fs';
import { SourceMap } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** Each file's map, or null when it has none (read at most once per process). */
const maps = new Map<string, SourceMap | null>();

function mapOf(file: string): SourceMap | null {
  let map = maps.get(file);
  if (map === undefined) {
    try {
      map = new SourceMap(JSON.parse(fs.readFileSync(`${file}.map`, 'utf8')));
    } catch {
      map = null;
    }
    maps.set(file, map);
  }
  return map;
}

/** A JavaScript file's position in a stack frame: `file:///var/task/index.mjs:1:2345` or `/path/x.js:1:2345`. */
const POSITION = /(file:\/\/\/[^\s()]+?\.[cm]?js|\/[^\s():]+?\.[cm]?js):(\d+):(\d+)/g;

/** `at f (file:///var/task/index.mjs:1:2345)` → `at f (/var/task/functions/app/x.ts:12:5)`; a frame without a map stays as it is. */
export function sourceStack(stack: string): string {
  return stack.replace(POSITION, (position, at: string, line: string, column: string) => {
    const file = at.startsWith('file:') ? fileURLToPath(at) : at;
    const entry = mapOf(file)?.findEntry(Number(line) - 1, Number(column) - 1);
    if (!entry || !('originalSource' in entry)) return position;
    return `${path.resolve(path.dirname(file), entry.originalSource)}:${entry.originalLine + 1}:${entry.originalColumn + 1}`;
  });
}
