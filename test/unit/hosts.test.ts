/**
 * The two hosts stand apart (decisions 220 and 221): the local host (local/) composes the
 * handler modules of functions/ with stand-ins for their ports and never reaches the CDK app
 * (infra/aws/) or the typed client (client/), even through a file it imports; what both hosts
 * read is in infra/*.ts, and the command-line toolkit in cli-kit/. The CDK app never imports
 * the local host.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

const ROOT = path.resolve(import.meta.dirname, '../..');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sourceFiles(path.join(dir, e.name)) : /\.tsx?$/.test(e.name) ? [path.join(dir, e.name)] : [],
  );
}

/** The repository files a file imports (relative specifiers only), as paths from the root. */
function importsOf(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  return [...text.matchAll(/(?:^|\n)\s*(?:import|export)[^'"]*?from\s*'([^']+)'|import\(\s*'([^']+)'\s*\)/g)]
    .map((m) => (m[1] ?? m[2])!)
    .filter((s) => s.startsWith('.'))
    .map((s) => {
      const js = path.resolve(path.dirname(file), s);
      const ts = js.replace(/\.js$/, '.ts');
      return existsSync(ts) ? ts : existsSync(`${ts}x`) ? `${ts}x` : js;
    });
}

/** Every file reachable from `entries` by imports, each with the chain that reaches it. */
function reachable(entries: string[]): Map<string, string[]> {
  const seen = new Map<string, string[]>(entries.map((f) => [f, [f]]));
  const queue = [...entries];
  while (queue.length > 0) {
    const file = queue.shift()!;
    if (!existsSync(file)) continue;
    for (const next of importsOf(file)) {
      if (seen.has(next)) continue;
      seen.set(next, [...seen.get(file)!, next]);
      queue.push(next);
    }
  }
  return seen;
}

const rel = (f: string) => path.relative(ROOT, f);

/** The import chains from `entries` that end in one of `folders`. */
function chainsInto(entries: string[], folders: string[]): string[] {
  return [...reachable(entries)]
    .filter(([file]) => folders.some((d) => rel(file).startsWith(`${d}/`)))
    .map(([, chain]) => chain.map(rel).join(' → '));
}

describe('the hosts', () => {
  it('the local host reaches neither the CDK app nor the client, even through the files it imports', () => {
    expect(chainsInto(sourceFiles(path.join(ROOT, 'local')), ['infra/aws', 'client'])).toEqual([]);
  });

  it('the CDK app never imports the local host', () => {
    expect(chainsInto(sourceFiles(path.join(ROOT, 'infra')), ['local'])).toEqual([]);
  });

  it('the command-line toolkit imports nothing of the repository', () => {
    const outside = sourceFiles(path.join(ROOT, 'cli-kit')).flatMap((f) => importsOf(f).filter((i) => !rel(i).startsWith('cli-kit/')));
    expect(outside.map(rel)).toEqual([]);
  });

  it('finds an import chain when there is one', () => {
    // The check itself: the CLI entry point reaches client/ through its own imports.
    expect(chainsInto([path.join(ROOT, 'bin/deployctl.ts')], ['client'])).toContain('bin/deployctl.ts → client/cli/main.ts');
  });
});
