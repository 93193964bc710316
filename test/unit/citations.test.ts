/**
 * The repository explains itself (docs/architecture.md, principle 9): every numbered
 * decision a tracked file cites is in docs/decisions.md, nothing points outside the
 * repository, and every repository path a comment or doc names exists.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { decisionNumbers, formatFinding, type Repository, scanCitations } from '../helpers/citations.js';

const ROOT = path.resolve(import.meta.dirname, '../..');

const tracked = execFileSync('git', ['ls-files'], { cwd: ROOT, encoding: 'utf8' }).split('\n').filter(Boolean);

/** Tracked files and every folder above them. */
const present = new Set(tracked.flatMap((f) => f.split('/').map((_, i, parts) => parts.slice(0, i + 1).join('/'))));

/** Source and docs; this file and its scanner's test strings are planted on purpose. */
const scanned = tracked.filter(
  (f) =>
    /\.(ts|tsx|js|cjs|md|json|css)$/.test(f) &&
    f !== 'package-lock.json' &&
    !f.startsWith('docs/screenshots/') &&
    f !== 'test/unit/citations.test.ts',
);

const repo: Repository = {
  decisions: decisionNumbers(readFileSync(path.join(ROOT, 'docs/decisions.md'), 'utf8')),
  exists: (p) => present.has(p),
};

describe('citations in the repository', () => {
  it('docs/decisions.md numbers the published decisions 1-47 and the project’s own from 100', () => {
    for (let n = 1; n <= 47; n++) expect(repo.decisions.has(n)).toBe(true);
    // 48-51: the published additions of 2026-11-28 (monitoring, hibernation, app users), entered as they are built.
    expect([...repo.decisions].filter((n) => n > 51 && n < 100)).toEqual([]);
    expect(repo.decisions.has(100)).toBe(true);
  });

  it('all resolve, in every tracked source and doc file', () => {
    expect(scanned.length).toBeGreaterThan(100);
    const findings = scanned.flatMap((f) => scanCitations(f, readFileSync(path.join(ROOT, f), 'utf8'), repo)).map(formatFinding);
    expect(findings).toEqual([]);
  });
});

describe('the citation scanner', () => {
  const planted: Repository = {
    decisions: new Set([1, 2, 3, 37, 38, 41, 43]),
    exists: (p) => ['docs', 'docs/data-model.md', 'functions', 'functions/core', 'functions/core/errors.ts', 'test'].includes(p),
  };
  const scan = (text: string, file = 'functions/core/x.ts') => scanCitations(file, text, planted).map(formatFinding);

  it('lets resolvable citations through', () => {
    expect(
      scan(
        [
          '/** Decision 37, decisions 37-38, decisions 41 and 43, decisions 1, 2, 3 (decision 38). */',
          '// See docs/data-model.md and core/errors.ts (functions/core/errors.ts, its .js form core/errors.js).',
          "import { x } from '../nowhere/else.js'; // code, not a comment, is not read for paths",
          ' * https://example.com/docs/missing.md is a URL, not a path of the repository.',
        ].join('\n'),
      ),
    ).toEqual([]);
  });

  it('reports a decision number the record does not have, with file and line', () => {
    expect(scan('ok\n/** As decision 39 says. */')).toEqual([
      'functions/core/x.ts:2: "decision 39" cites decision 39, which docs/decisions.md does not have',
    ]);
  });

  it.each([
    ['decisions 37-40', [39, 40]],
    ['decisions 41 and 44', [44]],
    ['decisions 37, 38, 42', [42]],
    ['(decision 6)', [6]],
    ['decisions 1, 2, and 5', [5]],
  ])('reads the numbers of "%s"', (text, missing) => {
    expect(scan(`// ${text}`)).toEqual([expect.stringContaining(`cites decision ${missing.join(', ')},`)]);
  });

  it.each([
    [`see ${['..', 'shared'].join('/')}/spec/x.md`, ['..', 'shared'].join('/')],
    ['read /work/shared/notes.txt', '/work/'],
    ['as DESIGN.md says', 'DESIGN.md'],
    ['per service-interface.md', 'service-interface.md'],
    ['per spec/decisions.md', 'spec/decisions.md'],
    ['what issue 12 asks', 'issue 12'],
    ['fixed in issue #16', 'issue #16'],
    ['polls as spec 4.9 asks', 'spec 4'],
    ['(spec §5, decision 1)', 'spec §5'],
    ["the interface's section 9", "interface's section 9"],
    ['the spec section on limits', 'spec section'],
  ])('reports "%s", which points outside the repository', (text, cited) => {
    expect(scan(`# ${text}`, 'docs/x.md')).toEqual([expect.stringContaining(`docs/x.md:1: "${cited}`)]);
  });

  it('reports a repository path in a comment or doc that does not exist', () => {
    const source = [
      '/**',
      ' * Built as docs/data-model.md says, with infra/local/user-pool.ts',
      ' */',
      'const a = 1; // and test/helpers/x.ts',
    ];
    expect(scan(source.join('\n'))).toEqual([
      'functions/core/x.ts:2: "infra/local/user-pool.ts" is not a file of the repository',
      'functions/core/x.ts:4: "test/helpers/x.ts" is not a file of the repository',
    ]);
    expect(scan('The table: [docs/missing.md](docs/missing.md).', 'README.md')).toEqual([
      'README.md:1: "docs/missing.md" is not a file of the repository',
      'README.md:1: "docs/missing.md" is not a file of the repository',
    ]);
  });
});
