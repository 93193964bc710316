/**
 * The repository explains itself (docs/architecture.md, principle 9): every numbered
 * decision a tracked file cites has its file in docs/decisions/, listed in the index,
 * nothing points outside the repository, and every repository path a comment or doc names
 * exists.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { formatFinding, type Repository, readDecisionRecord, scanCitations } from '../helpers/citations.js';

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

const read = (f: string) => readFileSync(path.join(ROOT, f), 'utf8');

/** The tracked files of docs/decisions/ but its index. */
const decisionFiles = tracked
  .filter((f) => f.startsWith('docs/decisions/') && f !== 'docs/decisions/README.md')
  .map((f) => ({ name: f.slice('docs/decisions/'.length), text: read(f) }));

const record = readDecisionRecord(decisionFiles, read('docs/decisions/README.md'), read('docs/decisions.md'));

const repo: Repository = { decisions: record.decisions, exists: (p) => present.has(p) };

describe('the decision record', () => {
  it('numbers the published decisions 1-47 (48-52 as each is built) and the project’s own from 100, a file each', () => {
    expect(decisionFiles.length).toBeGreaterThan(100);
    for (let n = 1; n <= 47; n++) expect(repo.decisions.has(n)).toBe(true);
    // 48-52: the published additions of 2026-11-28 (monitoring, hibernation, app users, the platform), entered as they are built.
    for (const n of [48, 49, 51]) expect(repo.decisions.has(n)).toBe(true);
    expect([...repo.decisions].filter((n) => n > 52 && n < 100)).toEqual([]);
    expect(repo.decisions.has(100)).toBe(true);
  });

  it('lists every file in its index under the file’s number and title, and nothing else', () => {
    expect(record.problems).toEqual([]);
  });
});

describe('citations in the repository', () => {
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
      'functions/core/x.ts:2: "decision 39" cites decision 39, which docs/decisions/ does not have',
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

describe('the decision record check', () => {
  const file = (name: string, heading: string) => ({ name, text: `# ${heading}\n\n**Decided.** x\n` });
  const files = [file('001-one-envelope.md', '1. One envelope'), file('037-event-log.md', '37. The `event` log | sequence')];
  const index = [
    '| # | decision | in one line |',
    '| --- | --- | --- |',
    '| 1 | [One envelope](001-one-envelope.md) | A success is data. |',
    '| 37 | [The `event` log \\| sequence](037-event-log.md) | Numbered. |',
  ];
  const check = (f = files, i = index, old = '# Decisions\n\nSee docs/decisions/.') => readDecisionRecord(f, i.join('\n'), old);

  it('reads the numbers of a record whose files, headings and index agree', () => {
    expect(check()).toEqual({ decisions: new Set([1, 37]), problems: [] });
  });

  it('reports a file the index does not list, and an index line without its file', () => {
    expect(check([...files, file('100-admission.md', '100. Admission')], index.slice(0, 3)).problems).toEqual([
      'docs/decisions/037-event-log.md: not in the index',
      'docs/decisions/100-admission.md: not in the index',
    ]);
    expect(check(files.slice(0, 1)).problems).toEqual(['docs/decisions/README.md:4: "037-event-log.md" is not a decision\'s file']);
  });

  it("reports a heading that is not the file's number, an index line that is not its heading, an empty line", () => {
    expect(check([file('001-one-envelope.md', '2. One envelope'), files[1]!]).problems).toEqual([
      'docs/decisions/001-one-envelope.md: its first line is not "# 1. Title"',
      'docs/decisions/README.md:3: "001-one-envelope.md" is not a decision\'s file',
    ]);
    expect(
      check(files, [index[0]!, '| 2 | [One envelope](001-one-envelope.md) | x |', '| 37 | [The event log](037-event-log.md) |  |'])
        .problems,
    ).toEqual([
      'docs/decisions/README.md:2: "2. One envelope" is not the heading of 001-one-envelope.md, "1. One envelope"',
      'docs/decisions/README.md:3: "37. The event log" is not the heading of 037-event-log.md, "37. The `event` log | sequence"',
      'docs/decisions/README.md:3: decision 37 has no line saying what was decided',
    ]);
  });

  it('reports a badly named file, a second file for a number, a broken index line', () => {
    expect(check([...files, file('1-x.md', '1. X'), file('037-again.md', '37. Again')], [...index, '| 38 | Webhooks |']).problems).toEqual([
      'docs/decisions/1-x.md: not named NNN-words.md',
      'docs/decisions/037-again.md: a second file for decision 37',
      'docs/decisions/README.md:5: not "| N | [Title](file) | one line |"',
      'docs/decisions/037-again.md: not in the index',
    ]);
  });

  it('reports an entry appended to the old single file, to be moved into a file of its own', () => {
    expect(check(files, index, '# Decisions\n\n#### 206. Lanes\n**Decided.** x').problems).toEqual([
      'docs/decisions.md: entry 206 belongs in a file of its own, docs/decisions/ (see its README)',
    ]);
  });
});
