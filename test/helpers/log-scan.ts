/**
 * The secrets scan of a test run's logs (SECURITY.md, "The secrets scan"): every line the handlers, the
 * workflow steps, the local host and the CLIs wrote during the run (log-capture.ts) is
 * searched for the forms a credential takes in this service. test-run.cjs fails the
 * run on any finding, naming file, line and pattern with the secret masked. A run of a
 * whole lane must also have captured a floor of lines from each source it feeds, so an
 * empty capture cannot pass the scan by having nothing to show.
 */
import { appendFileSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { KEY_PREFIX, keyForm, TOKEN_LENGTHS } from '../../functions/core/api-keys.js';

/** What every env secret value a test sets starts with (test/integration/deployment-config.test.ts). */
export const ENV_SECRET_PREFIX = 'envsecret_';

/** What every app user password a test gives starts with (test/integration/app-user-passwords.test.ts). */
export const APP_PASSWORD_PREFIX = 'apppw_';

const CANARY_DIR_VAR = 'TEST_CANARY_DIR';

/**
 * Registers a secret with no form of its own to find it by (an app user's password the
 * service made, decision 51): the scan then looks for it, as it is, in every line of the
 * run. Test processes append to a file of their own in the run's canary directory
 * (global-setup.cjs), which no log line is written to.
 */
export function registerCanary(secret: string): void {
  const dir = process.env[CANARY_DIR_VAR];
  if (!dir)
    throw new Error(`${CANARY_DIR_VAR} is not set: jest's globalSetup (test/helpers/global-setup.cjs) makes the run's canary directory.`);
  appendFileSync(path.join(dir, `canaries-${process.pid}.txt`), `${secret}\n`);
}

/** Every canary the run's processes registered. */
export function registeredCanaries(dir: string | undefined = process.env[CANARY_DIR_VAR]): string[] {
  if (!dir) return [];
  return readdirSync(dir).flatMap((name) =>
    readFileSync(path.join(dir, name), 'utf8')
      .split('\n')
      .filter((c) => c.length > 0),
  );
}

/** The registered canaries a line holds. */
export function scanForCanaries(line: string, canaries: readonly string[]): LineFinding[] {
  return canaries.filter((c) => line.includes(c)).map((c) => ({ pattern: 'registered canary (app user password)', masked: mask(c) }));
}

export interface SecretPattern {
  name: string;
  /** Global, so every occurrence on a line is found. */
  pattern: RegExp;
  /** A second test for forms too common to flag on shape alone. */
  holds?: (match: string) => boolean;
}

export const SECRET_PATTERNS: readonly SecretPattern[] = [
  // A key, or anything sent as one: whatever follows the prefix. The hint (`svc_sk_live_…abcd`,
  // decision 35) is meant to be shown, and its ellipsis is not a base62 character.
  { name: 'API key', pattern: new RegExp(`${KEY_PREFIX}[0-9A-Za-z]+`, 'g') },
  // A key's token without its prefix: 49 or 51 base62 characters whose last 6 or 8 are the
  // checksum of the first 43 (a CRC, or an HMAC under the run's API_KEY_SECRET), which a
  // random run of letters and digits matches once in 2^32 or more.
  {
    name: 'API key token',
    pattern: new RegExp(`(?<![0-9A-Za-z])(?:${TOKEN_LENGTHS.map((n) => `[0-9A-Za-z]{${n}}`).join('|')})(?![0-9A-Za-z])`, 'g'),
    holds: (m) => keyForm(KEY_PREFIX + m, Buffer.from(process.env.API_KEY_SECRET ?? '', 'base64')) !== undefined,
  },
  // The stored form of a key (`KEY#<sha256 hex>`); no other 64-digit hex value is logged.
  { name: 'key hash (SHA-256 hex)', pattern: /(?<![0-9A-Fa-f])[0-9A-Fa-f]{64}(?![0-9A-Fa-f])/g },
  { name: 'webhook secret', pattern: /whsec_[A-Za-z0-9+/]+=*/g },
  // The part of a webhook secret after `whsec_`, or a local secret (WEBHOOK_SECRET_KEY, API_KEY_SECRET).
  { name: '32 bytes in base64 (webhook secret or sealing key)', pattern: /(?<![A-Za-z0-9+/])[A-Za-z0-9+/]{43}=(?![A-Za-z0-9+/=])/g },
  // A sealed webhook secret (core/secret-sealer.ts; every format, the legacy ones too)
  // reveals nothing without its key, but a log that holds one is logging a stored webhook
  // or replay record, which it never should.
  { name: 'sealed secret', pattern: /\b(?:v[12]|kms2?):[A-Za-z0-9+/]{32,}={0,2}/g },
  // A deployment's env secret value (decision 41): the tests send theirs with this prefix
  // (ENV_SECRET_PREFIX), so one that reached a log line is found; the sealed form is the line above.
  { name: 'env secret value', pattern: new RegExp(`${ENV_SECRET_PREFIX}\\w*`, 'g') },
  // An app user's password a test gave (decision 51); the ones the service made are registered canaries.
  { name: 'app user password', pattern: new RegExp(`${APP_PASSWORD_PREFIX}\\w*`, 'g') },
  { name: 'Authorization value', pattern: /\b(?:Bearer|Basic)\s+[^\s"',;]+/gi },
  // The dashboard's ID and access tokens (the user pool's, emulated locally with jose).
  { name: 'JWT', pattern: /\beyJ[\w-]+\.[\w-]+\.[\w-]*/g },
  // A request's credential headers logged whole (an event dump), whatever their value.
  { name: 'credential header', pattern: /["']?\b(?:x-api-key|authorization)["']?\s*[:=]\s*["']?[^\s"',}]+/gi },
  // The user pool's refresh tokens: 48 random bytes in base64url (a hex run is the hash's pattern).
  { name: 'refresh token', pattern: /(?<![\w-])(?=[\w-]{0,63}[G-Zg-z_-])[\w-]{64}(?![\w-])/g },
];

/** Enough to tell findings apart, nothing of the secret itself beyond its first four characters. */
export function mask(secret: string): string {
  return `${secret.slice(0, 4)}…(${secret.length} characters)`;
}

export interface LineFinding {
  pattern: string;
  masked: string;
}

export function scanLine(line: string): LineFinding[] {
  const found: LineFinding[] = [];
  for (const { name, pattern, holds } of SECRET_PATTERNS) {
    for (const [match] of line.matchAll(pattern)) if (!holds || holds(match)) found.push({ pattern: name, masked: mask(match) });
  }
  return found;
}

export interface Finding extends LineFinding {
  file: string;
  line: number;
}

/** How many lines each source wrote: the scan's evidence that it saw what the run logged. */
export interface Counts {
  files: number;
  lines: number;
  /** Access lines (`request`) of the handlers the test files ran in their own processes. */
  handlerRequests: number;
  /** `workflow step` lines of the local Step Functions endpoint, in the test processes or under npm start. */
  workflowSteps: number;
  /** Lines an `npm start` child wrote. */
  npmStartLines: number;
}

export interface ScanResult {
  dir: string;
  counts: Counts;
  findings: Finding[];
}

function messageOf(line: string): unknown {
  if (!line.startsWith('{')) return undefined;
  try {
    return (JSON.parse(line) as { message?: unknown }).message;
  } catch {
    return undefined;
  }
}

/** `canaries`: secrets registered by the run's tests (registerCanary), looked for as they are. */
export function scanLogDir(dir: string, canaries: readonly string[] = []): ScanResult {
  const counts: Counts = { files: 0, lines: 0, handlerRequests: 0, workflowSteps: 0, npmStartLines: 0 };
  const findings: Finding[] = [];
  for (const name of readdirSync(dir).sort()) {
    const file = path.join(dir, name);
    const lines = readFileSync(file, 'utf8').split('\n');
    if (lines.at(-1) === '') lines.pop();
    counts.files++;
    counts.lines += lines.length;
    const inProcess = name.startsWith('jest-');
    if (name.startsWith('npm-start-')) counts.npmStartLines += lines.length;
    lines.forEach((text, i) => {
      for (const f of [...scanLine(text), ...scanForCanaries(text, canaries)]) findings.push({ file, line: i + 1, ...f });
      const message = messageOf(text);
      if (message === 'workflow step') counts.workflowSteps++;
      else if (message === 'request' && inProcess) counts.handlerRequests++;
    });
  }
  return { dir, counts, findings };
}

/**
 * What a run of a whole lane captures at the least (a full run makes several times as much:
 * generated-input.test.ts alone sends 10,000 requests): fewer means the capture, not the
 * code, is broken. Each floor belongs to the lane whose tests make those lines (decision
 * 208), and applies when that lane ran whole, alone or with others.
 */
export const LANE_FLOORS: Readonly<Record<string, Partial<Pick<Counts, 'handlerRequests' | 'workflowSteps' | 'npmStartLines'>>>> = {
  // Handlers and workflow steps run in the test processes.
  integration: { handlerRequests: 1000, workflowSteps: 100 },
  // Processes of `npm start`.
  e2e: { npmStartLines: 20 },
};

/** The run's verdict: the problems that fail it (none for a clean run), and a one-line summary. */
export function verdict(result: ScanResult, lanesRunWhole: readonly string[]): { problems: string[]; summary: string } {
  const { counts, findings } = result;
  const problems = findings.map((f) => `${f.file}:${f.line}  ${f.pattern}  ${f.masked}`);
  for (const lane of lanesRunWhole) {
    for (const [source, floor] of Object.entries(LANE_FLOORS[lane] ?? {}) as [keyof Counts, number][])
      if (counts[source] < floor)
        problems.push(
          `captured ${counts[source]} ${source}, fewer than the ${floor} a whole run of the ${lane} lane makes: is the capture broken?`,
        );
  }
  const n = (x: number) => x.toLocaleString('en-US');
  const summary =
    `Log scan: ${n(counts.lines)} lines in ${n(counts.files)} files (${n(counts.handlerRequests)} handler requests, ` +
    `${n(counts.workflowSteps)} workflow steps, ${n(counts.npmStartLines)} lines of npm start), ` +
    (findings.length ? `${n(findings.length)} secrets found` : 'no secret found');
  return { problems, summary };
}

/** The parts of jest's global configuration that narrow a run to part of the suite. */
export interface RunSelection {
  testPathPatterns?: { isSet?: () => boolean; patterns?: readonly string[] };
  testNamePattern?: string;
  onlyChanged?: boolean;
  onlyFailures?: boolean;
  findRelatedTests?: boolean;
  changedSince?: string;
  lastCommit?: boolean;
  shard?: unknown;
}

/** Whether jest runs every test file and test of the lanes it selects (`npm test`, `npm run test:integration`), where the floors apply. */
export function isWholeSuite(c: RunSelection): boolean {
  const paths = c.testPathPatterns?.isSet?.() ?? (c.testPathPatterns?.patterns?.length ?? 0) > 0;
  return (
    !paths && !c.testNamePattern && !c.onlyChanged && !c.onlyFailures && !c.findRelatedTests && !c.changedSince && !c.lastCommit && !c.shard
  );
}
