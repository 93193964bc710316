/**
 * The citation check of test/unit/citations.test.ts: what a comment or a doc may point at.
 * A numbered decision must have its file in docs/decisions/, nothing may point outside the
 * repository, and a repository path named in a comment or doc must exist, so a clone can
 * follow every reference it reads.
 */

export interface Finding {
  file: string;
  line: number;
  problem: string;
}

export interface Repository {
  /** The decision numbers docs/decisions/ has a file for. */
  decisions: ReadonlySet<number>;
  /** Whether a path (relative to the repository's root, `/`-separated) is a tracked file or folder. */
  exists: (path: string) => boolean;
}

/** The numbers in "decision 6", "decisions 37-38", "decisions 41 and 43", "decisions 28, 32, 40". */
const DECISIONS = /\bdecisions?\s+(\d+(?:\s*(?:[-–]|,\s*and\b|,|\band\b|&)\s*\d+)*)/gi;

/** References a clone cannot follow: documents kept outside the repository, and issue numbers of another tracker. */
const OUTSIDE: readonly { pattern: RegExp; what: string }[] = [
  { pattern: /\.\.\/shared\b/, what: 'a path outside the repository' },
  { pattern: /\/work\//, what: 'a path outside the repository' },
  { pattern: /\bDESIGN\.md\b/, what: 'a design document outside the repository' },
  { pattern: /\bservice-interface\.md\b/, what: 'an interface document outside the repository' },
  { pattern: /\bspec\/decisions\.md\b/, what: 'a decision record outside the repository (docs/decisions/ is ours)' },
  { pattern: /\bissue\s+#?\d+/i, what: 'an issue number of a tracker outside the repository' },
  { pattern: /\b(?:spec|interface)(?:'s)?\s+(?:section\s+)?§?\s*\d/i, what: 'a section of a specification outside the repository' },
  { pattern: /\bspec(?:'s)?\s+section\b/i, what: 'a section of a specification outside the repository' },
];

/** A path with a folder and a file extension, not part of a URL or a longer path. */
const PATH = /(?<![\w./@:-])((?:[\w-][\w.-]*\/)+[\w-][\w.-]*\.(?:ts|tsx|js|cjs|mjs|md|json|css|java|sh))\b/g;

/**
 * Where a path in a comment is looked for: from the root, or as the short forms the
 * comments use (`adapters/dynamo/client.ts` under functions/, `helpers/wait.ts` under test/),
 * or next to the file that names it.
 */
function candidates(path: string, file: string): string[] {
  const dir = file.includes('/') ? file.slice(0, file.lastIndexOf('/')) : '';
  const bases = ['', 'functions/', 'test/', dir ? `${dir}/` : ''];
  // A comment may name the compiled `.js` of a TypeScript module, as imports do.
  const forms = path.endsWith('.js') ? [path, path.replace(/\.js$/, '.ts'), path.replace(/\.js$/, '.tsx')] : [path];
  return bases.flatMap((b) => forms.map((f) => normalize(b + f)));
}

function normalize(path: string): string {
  const out: string[] = [];
  for (const part of path.split('/')) {
    if (part === '..') out.pop();
    else if (part !== '.' && part !== '') out.push(part);
  }
  return out.join('/');
}

/** The part of a line that is prose: all of it in Markdown and JSON (the ASL's comments are strings), else its comment. */
function commentOf(line: string, file: string): string | undefined {
  if (/\.(md|json)$/.test(file)) return line;
  const t = line.trim();
  if (t.startsWith('*') || t.startsWith('/*') || t.startsWith('//')) return line;
  const at = line.search(/(?<!:)\/\/\s|\/\*\*?\s/);
  return at >= 0 ? line.slice(at) : undefined;
}

function expand(list: string): number[] {
  const out: number[] = [];
  for (const part of list.split(/\s*(?:,\s*and\b|,|\band\b|&)\s*/)) {
    const [from, to] = part.split(/\s*[-–]\s*/).map(Number);
    if (from === undefined || Number.isNaN(from)) continue;
    for (let n = from; n <= (to ?? from) && n - from < 1000; n++) out.push(n);
  }
  return out;
}

/** Every citation in one file's text that does not resolve. */
export function scanCitations(file: string, text: string, repo: Repository): Finding[] {
  const findings: Finding[] = [];
  text.split('\n').forEach((line, i) => {
    const at = (problem: string) => findings.push({ file, line: i + 1, problem });
    for (const m of line.matchAll(DECISIONS)) {
      const missing = expand(m[1]!).filter((n) => !repo.decisions.has(n));
      if (missing.length) at(`"${m[0]}" cites decision ${missing.join(', ')}, which docs/decisions/ does not have`);
    }
    for (const { pattern, what } of OUTSIDE) {
      const m = line.match(pattern);
      if (m) at(`"${m[0]}": ${what}`);
    }
    const comment = commentOf(line, file);
    if (comment === undefined) return;
    for (const m of comment.matchAll(PATH)) {
      const path = m[1]!;
      // node_modules is not tracked; a path outside the repository is reported above already.
      if (path.startsWith('node_modules/') || OUTSIDE.some(({ pattern }) => pattern.test(path))) continue;
      if (!candidates(path, file).some(repo.exists)) at(`"${path}" is not a file of the repository`);
    }
  });
  return findings;
}

/** One file of docs/decisions/: its name and its text. */
export interface DecisionFile {
  name: string;
  text: string;
}

/** A decision's file: its number in three digits, then a few words of its title. */
const DECISION_FILE = /^(\d{3})-[a-z0-9]+(?:-[a-z0-9]+)*\.md$/;

/** A line of the index: `| N | [Title](NNN-words.md) | what was decided |`. */
const INDEX_LINE = /^\| (\d+) \| \[(.+)\]\(([^)]+)\) \| (.*) \|$/;

/**
 * The decision record: the numbers of the files of docs/decisions/, and every way the files,
 * their headings, the index (docs/decisions/README.md) and the old single file fail to agree,
 * so that the index can be trusted to list every decision a comment cites (decision 215).
 * The index lists each file once under its number and title; each file's heading is
 * `# N. Title` with N its name's number; the old docs/decisions.md holds no entry (one
 * appended there by habit is reported, to be moved into a file of its own).
 */
export function readDecisionRecord(
  files: readonly DecisionFile[],
  index: string,
  oldRecord: string,
): { decisions: Set<number>; problems: string[] } {
  const problems: string[] = [];
  const titles = new Map<string, { n: number; title: string }>();
  const decisions = new Set<number>();
  for (const { name, text } of files) {
    const m = DECISION_FILE.exec(name);
    if (!m) {
      problems.push(`docs/decisions/${name}: not named NNN-words.md`);
      continue;
    }
    const n = Number(m[1]);
    const heading = /^# (\d+)\. (.+)$/m.exec(text.split('\n', 1)[0] ?? '');
    if (!heading || Number(heading[1]) !== n) {
      problems.push(`docs/decisions/${name}: its first line is not "# ${n}. Title"`);
      continue;
    }
    if (decisions.has(n)) problems.push(`docs/decisions/${name}: a second file for decision ${n}`);
    decisions.add(n);
    titles.set(name, { n, title: heading[2]! });
  }
  const listed = new Set<string>();
  index.split('\n').forEach((line, i) => {
    const m = INDEX_LINE.exec(line);
    if (!m) {
      if (/^\| \d/.test(line)) problems.push(`docs/decisions/README.md:${i + 1}: not "| N | [Title](file) | one line |"`);
      return;
    }
    const [, n, title, file, summary] = m;
    const at = `docs/decisions/README.md:${i + 1}`;
    const entry = titles.get(file!);
    if (!entry) problems.push(`${at}: "${file}" is not a decision's file`);
    else if (entry.n !== Number(n) || entry.title !== title!.replace(/\\\|/g, '|'))
      problems.push(`${at}: "${n}. ${title}" is not the heading of ${file}, "${entry.n}. ${entry.title}"`);
    if (!summary!.trim()) problems.push(`${at}: decision ${n} has no line saying what was decided`);
    if (listed.has(file!)) problems.push(`${at}: ${file} is listed twice`);
    listed.add(file!);
  });
  for (const name of titles.keys()) if (!listed.has(name)) problems.push(`docs/decisions/${name}: not in the index`);
  for (const m of oldRecord.matchAll(/^#{2,4} (\d+)\. .*$/gm))
    problems.push(`docs/decisions.md: entry ${m[1]} belongs in a file of its own, docs/decisions/ (see its README)`);
  return { decisions, problems };
}

export const formatFinding = (f: Finding): string => `${f.file}:${f.line}: ${f.problem}`;
