/**
 * `npx tsx bin/move-decisions.ts [root]`: moves the entries appended to docs/decisions.md
 * (`#### N. Title`, then **Decided.** … **Why.** …, the old single-file form) into the
 * decision record's layout: a file of docs/decisions/ each (its number in three digits,
 * then words), and a line in the index's table of part 2 in number order
 * (docs/decisions/README.md, "Adding a decision"), leaving docs/decisions.md the stub it
 * was. Branches written before the split appended there; this converts them at merge, so
 * the record keeps one layout (decision 215). It writes nothing when an entry's number
 * already has a file, or belongs to part 1 (1-99: those go under their group by hand).
 * Exit 0 when done or nothing to move, 1 when refused. test/unit/citations.test.ts then
 * checks the result.
 */
import fs from 'node:fs';
import path from 'node:path';

interface Entry {
  n: number;
  title: string;
  body: string;
}

const ENTRY = /^#### (\d+)\. (.+)$/;

/** The entries of the old single file, and the text before the first one (the stub). */
function readEntries(markdown: string): { stub: string; entries: Entry[] } {
  const lines = markdown.split('\n');
  const first = lines.findIndex((l) => ENTRY.test(l));
  if (first < 0) return { stub: markdown, entries: [] };
  const raw: { n: number; title: string; lines: string[] }[] = [];
  let open = false;
  for (const line of lines.slice(first)) {
    const m = ENTRY.exec(line);
    if (m) raw.push({ n: Number(m[1]), title: m[2]!, lines: [] });
    // A heading of another level (a part or a group) ends the entry before it.
    open = m ? true : open && !/^#{1,3} /.test(line);
    if (!m && open) raw.at(-1)!.lines.push(line);
  }
  const entries = raw.map(({ n, title, lines: body }) => ({ n, title, body: body.join('\n').trim() }));
  return { stub: `${lines.slice(0, first).join('\n').trimEnd()}\n`, entries };
}

const WEAK = new Set([
  'a',
  'an',
  'the',
  'and',
  'of',
  'to',
  'for',
  'in',
  'on',
  'by',
  'with',
  'is',
  'are',
  'its',
  'at',
  'as',
  'it',
  'not',
  'that',
]);

/** A few words of the title, lowercase, joined by `-`: `152-workflows-checks-back-off.md`. */
function fileName(n: number, title: string): string {
  const words = title
    .toLowerCase()
    .replace(/[`'’"*]/g, '')
    .replace(/[^a-z0-9]+/g, ' ')
    .trim()
    .split(' ');
  while (words.length > 1 && WEAK.has(words[0]!)) words.shift();
  const kept: string[] = [];
  for (const w of words) {
    if (kept.join('-').length + w.length > 48) break;
    kept.push(w);
  }
  while (kept.length > 1 && WEAK.has(kept.at(-1)!)) kept.pop();
  return `${String(n).padStart(3, '0')}-${kept.join('-') || 'decision'}.md`;
}

/** The first sentence of what was decided, for the index (cut at a `; ` past 200 characters). */
function oneLine(body: string): string {
  const text = body.replace(/\s+/g, ' ');
  const decided = /\*\*Decided\.\*\* (.*?)(?= \*\*Why\.\*\*|$)/.exec(text)?.[1] ?? text;
  let end = decided.length;
  let code = false;
  for (let i = 0; i < decided.length; i++) {
    if (decided[i] === '`') code = !code;
    const next = decided.slice(i + 1, i + 3);
    if (
      !code &&
      decided[i] === '.' &&
      (i + 1 === decided.length || /^ [A-Z`(]/.test(next)) &&
      !/\b(e\.g|i\.e|etc)$/.test(decided.slice(0, i))
    ) {
      end = i + 1;
      break;
    }
  }
  let line = decided.slice(0, end).trim();
  const cut = line.length > 200 ? line.lastIndexOf('; ', 200) : -1;
  if (cut > 60) line = `${line.slice(0, cut)}; …`;
  return line.replace(/\|/g, '\\|');
}

/** The index with `row` in part 2's table, before the first row of a higher number. */
function insertRow(index: string, n: number, row: string): string {
  const lines = index.split('\n');
  const part2 = lines.findIndex((l) => l.startsWith('## Part 2'));
  if (part2 < 0) throw new Error('docs/decisions/README.md has no "## Part 2" heading');
  let at = -1;
  for (let i = part2 + 1; i < lines.length && !lines[i]!.startsWith('## '); i++) {
    const m = /^\| (\d+) \|/.exec(lines[i]!);
    if (m && Number(m[1]) > n) {
      at = i;
      break;
    }
    if (m || lines[i]!.startsWith('| ---')) at = i + 1;
  }
  if (at < 0) throw new Error('docs/decisions/README.md has no table under "## Part 2"');
  lines.splice(at, 0, row);
  return lines.join('\n');
}

/** What moving the entries writes: the files, the new index and the stub; or why it refuses. */
function planMove(
  oldRecord: string,
  index: string,
  existing: readonly string[],
): { files: { name: string; text: string }[]; index: string; stub: string } | { refused: string[] } {
  const { stub, entries } = readEntries(oldRecord);
  const taken = new Set(existing.map((f) => Number(/^(\d{3})-/.exec(f)?.[1])));
  const refused = entries.flatMap((e) => [
    ...(e.n < 100 ? [`decision ${e.n} belongs to part 1: add its file and index line by hand, under its group`] : []),
    ...(taken.has(e.n) ? [`decision ${e.n} already has a file in docs/decisions/: give the entry the next free number`] : []),
    ...(entries.filter((o) => o.n === e.n).length > 1 ? [`decision ${e.n} appears twice in docs/decisions.md`] : []),
  ]);
  if (refused.length) return { refused: [...new Set(refused)] };
  let next = index;
  const files = [...entries]
    .sort((a, b) => a.n - b.n)
    .map((e) => {
      const name = fileName(e.n, e.title);
      next = insertRow(next, e.n, `| ${e.n} | [${e.title.replace(/\|/g, '\\|')}](${name}) | ${oneLine(e.body)} |`);
      return { name, text: `# ${e.n}. ${e.title}\n\n${e.body}\n\n---\nPart 2: the project's own choices. [All decisions](README.md)\n` };
    });
  return { files, index: next, stub };
}

function main(root: string): number {
  const dir = path.join(root, 'docs/decisions');
  const read = (f: string) => fs.readFileSync(path.join(root, f), 'utf8');
  const plan = planMove(read('docs/decisions.md'), read('docs/decisions/README.md'), fs.readdirSync(dir));
  if ('refused' in plan) {
    for (const r of plan.refused) console.error(`move-decisions: ${r}`);
    console.error('move-decisions: nothing written');
    return 1;
  }
  if (!plan.files.length) {
    console.log('move-decisions: docs/decisions.md holds no entry to move');
    return 0;
  }
  for (const f of plan.files) {
    fs.writeFileSync(path.join(dir, f.name), f.text);
    console.log(`move-decisions: docs/decisions/${f.name}`);
  }
  fs.writeFileSync(path.join(dir, 'README.md'), plan.index);
  fs.writeFileSync(path.join(root, 'docs/decisions.md'), plan.stub);
  console.log(
    `move-decisions: ${plan.files.length} moved; check the index's one-liners by eye, then run npx jest test/unit/citations.test.ts`,
  );
  return 0;
}

process.exitCode = main(path.resolve(process.argv[2] ?? '.'));
