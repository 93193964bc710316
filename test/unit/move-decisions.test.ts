/**
 * bin/move-decisions.ts, run as the lead runs it after a merge: entries appended to
 * docs/decisions.md in the old form become files of docs/decisions/ and lines of its
 * index, in number order, and the old file is the stub again; a number already taken, or
 * one of part 1, is refused with nothing written.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { readDecisionRecord } from '../helpers/citations.js';
import { runProcess } from '../helpers/run-process.js';

const STUB = '# Decisions\n\nThe decision record is [docs/decisions/](decisions/README.md).\n';
const INDEX = [
  '# Decisions',
  '',
  '## Part 1: the published behaviour (1-47)',
  '',
  '| # | decision | in one line |',
  '| --- | --- | --- |',
  '| 1 | [One envelope](001-one-envelope.md) | A success is data. |',
  '',
  '## Part 2: the project’s own choices (100 and up)',
  '',
  '| # | decision | in one line |',
  '| --- | --- | --- |',
  '| 100 | [Admission](100-admission.md) | One write. |',
  '| 300 | [Later](300-later.md) | Much later. |',
  '',
].join('\n');
const APPENDED = [
  '',
  '#### 210. Lanes for `jest`, and a watch script',
  '**Decided.** Jest runs as projects (`jest.config.cjs`). `npm run test:unit` needs no Java.',
  '**Why.** Seconds, not minutes.',
  '',
  '#### 206. The unit lane | no engines',
  '**Decided.** Pure rules are tested alone; e.g. paging. The rest as before.',
  '**Why.** A rule is cheaper to test alone.',
  '',
].join('\n');

let root: string;
const file = (f: string) => fs.readFileSync(path.join(root, f), 'utf8');
const record = () =>
  readDecisionRecord(
    fs
      .readdirSync(path.join(root, 'docs/decisions'))
      .filter((f) => f !== 'README.md')
      .map((name) => ({ name, text: file(`docs/decisions/${name}`) })),
    file('docs/decisions/README.md'),
    file('docs/decisions.md'),
  );
const move = () => runProcess(process.execPath, ['--import', 'tsx', 'bin/move-decisions.ts', root], { env: process.env });

beforeEach(() => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'move-decisions-'));
  fs.mkdirSync(path.join(root, 'docs/decisions'), { recursive: true });
  fs.writeFileSync(path.join(root, 'docs/decisions/README.md'), INDEX);
  for (const [name, title] of [
    ['001-one-envelope.md', '1. One envelope'],
    ['100-admission.md', '100. Admission'],
    ['300-later.md', '300. Later'],
  ])
    fs.writeFileSync(path.join(root, 'docs/decisions', name!), `# ${title}\n\n**Decided.** x\n`);
  fs.writeFileSync(path.join(root, 'docs/decisions.md'), STUB + APPENDED);
});

afterEach(() => fs.rmSync(root, { recursive: true, force: true }));

describe('bin/move-decisions.ts', () => {
  it('moves appended entries into files and index lines in number order, and restores the stub', async () => {
    expect(record().problems).toEqual([expect.stringContaining('entry 210'), expect.stringContaining('entry 206')]);
    const r = await move();
    expect(r.code).toBe(0);
    expect(file('docs/decisions.md')).toBe(STUB);
    expect(file('docs/decisions/206-unit-lane-no-engines.md')).toBe(
      [
        '# 206. The unit lane | no engines',
        '',
        '**Decided.** Pure rules are tested alone; e.g. paging. The rest as before.',
        '**Why.** A rule is cheaper to test alone.',
        '',
        '---',
        "Part 2: the project's own choices. [All decisions](README.md)",
        '',
      ].join('\n'),
    );
    expect(file('docs/decisions/210-lanes-for-jest-and-a-watch-script.md')).toContain('**Why.** Seconds, not minutes.\n');
    const rows = file('docs/decisions/README.md')
      .split('\n')
      .filter((l) => /^\| \d/.test(l));
    expect(rows).toEqual([
      '| 1 | [One envelope](001-one-envelope.md) | A success is data. |',
      '| 100 | [Admission](100-admission.md) | One write. |',
      '| 206 | [The unit lane \\| no engines](206-unit-lane-no-engines.md) | Pure rules are tested alone; e.g. paging. |',
      '| 210 | [Lanes for `jest`, and a watch script](210-lanes-for-jest-and-a-watch-script.md) | Jest runs as projects (`jest.config.cjs`). |',
      '| 300 | [Later](300-later.md) | Much later. |',
    ]);
    expect(record()).toEqual({ decisions: new Set([1, 100, 206, 210, 300]), problems: [] });
    expect((await move()).stdout).toContain('holds no entry to move');
  });

  it.each([
    ['#### 300. Taken\n**Decided.** x', '300 already has a file'],
    ['#### 48. Published\n**Decided.** x', '48 belongs to part 1'],
    ['#### 207. Twice\n**Decided.** x\n\n#### 207. Twice again\n**Decided.** y', '207 appears twice'],
  ])('refuses %j and writes nothing', async (entry, why) => {
    fs.writeFileSync(path.join(root, 'docs/decisions.md'), `${STUB}\n${entry}\n`);
    const r = await move();
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(why);
    expect(file('docs/decisions.md')).toBe(`${STUB}\n${entry}\n`);
    expect(file('docs/decisions/README.md')).toBe(INDEX);
    expect(fs.readdirSync(path.join(root, 'docs/decisions'))).toHaveLength(4);
  });
});
