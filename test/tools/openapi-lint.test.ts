/**
 * The generated document passes two independent linters with no finding: Spectral (its
 * OpenAPI rules and the OWASP API Security ruleset, `.spectral.yaml`) and Redocly (its
 * recommended rules, `redocly.yaml`). Both run offline, as the CLIs a developer would run,
 * on the document the service serves; a route added to the route table is linted with the
 * rest. Decision 162 says which rules are off or replaced, and why.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { API_PREFIX, routeList } from '../../contract/routes.js';
import { openApiDocument, openApiJson } from '../../functions/docs/openapi-document.js';
import { runProcess } from '../helpers/run-process.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
const SPECTRAL = path.join(ROOT, 'node_modules/@stoplight/spectral-cli/dist/index.js');
const REDOCLY = path.join(ROOT, 'node_modules/@redocly/cli/bin/cli.js');
const env = { ...process.env, NO_COLOR: '1', REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true', SCARF_ANALYTICS: 'false' };

const dir = mkdtempSync(path.join(os.tmpdir(), 'openapi-lint-'));
const served = path.join(dir, 'openapi.json');
writeFileSync(served, openApiJson());

type Doc = { paths: Record<string, Record<string, any>> };

/**
 * The document with one flaw of each kind the replaced rules look for, so a rule whose
 * `given` matched nothing would show here, not pass in silence.
 */
function flawed(): string {
  const doc = structuredClone(openApiDocument()) as unknown as Doc;
  const keyed = routeList.find((r) => r.access !== 'public' && r.method === 'GET' && r.params)!;
  const op = doc.paths[API_PREFIX + keyed.path]![keyed.method.toLowerCase()]!;
  delete op.responses[String(keyed.success.status)].headers['X-RateLimit-Limit'];
  const param = op.parameters.find((p: { in?: string }) => p.in === 'path');
  delete param.schema.maxLength;
  const withInt = routeList.find((r) => r.query && r.method === 'GET' && r.access !== 'public')!;
  const listOp = doc.paths[API_PREFIX + withInt.path]![withInt.method.toLowerCase()]!;
  const page = listOp.parameters.find((p: { name?: string; schema?: { type?: string } }) => p.schema?.type === 'integer');
  delete page.schema.maximum;
  const file = path.join(dir, 'flawed.json');
  writeFileSync(file, JSON.stringify(doc));
  return file;
}

interface SpectralFinding {
  code: string;
  path: string[];
  message: string;
  source: string;
}

describe('linting the OpenAPI document', () => {
  it('Spectral (spectral:oas and the OWASP API Security ruleset) finds nothing; its replacement rules catch their flaws', async () => {
    const flawedFile = flawed();
    const run = await runProcess(
      process.execPath,
      [SPECTRAL, 'lint', served, flawedFile, '--ruleset', path.join(ROOT, '.spectral.yaml'), '--format', 'json', '--quiet'],
      { env, timeoutMs: 180_000 },
    );
    const findings = JSON.parse(run.stdout) as SpectralFinding[];
    const show = (f: SpectralFinding) => `${f.code} at ${f.path.join('.')}: ${f.message}`;
    expect(findings.filter((f) => path.resolve(f.source) === served).map(show)).toEqual([]);
    const caught = new Set(findings.filter((f) => path.resolve(f.source) === flawedFile).map((f) => f.code));
    expect([...caught].sort()).toEqual(['keyed-rate-limit', 'request-integer-limit', 'request-string-limit']);
  }, 200_000);

  it('Redocly (recommended) finds nothing', async () => {
    const run = await runProcess(
      process.execPath,
      [REDOCLY, 'lint', served, '--config', path.join(ROOT, 'redocly.yaml'), '--format', 'json', '--max-problems', '10000'],
      { env, timeoutMs: 120_000 },
    );
    const report = JSON.parse(run.stdout) as { problems: { ruleId: string; message: string; location: { pointer: string }[] }[] };
    expect(report.problems.map((p) => `${p.ruleId} at ${p.location[0]?.pointer}: ${p.message}`)).toEqual([]);
    expect(run.code).toBe(0);
  }, 150_000);

  it('turns a rule off only with its reason written above it', () => {
    for (const file of ['.spectral.yaml', 'redocly.yaml']) {
      const lines = readFileSync(path.join(ROOT, file), 'utf8').split('\n');
      lines.forEach((line, i) => {
        if (!/:\s*off\s*$/.test(line)) return;
        // The rule's line follows a comment, directly or after other rules the same comment covers.
        let j = i - 1;
        while (j >= 0 && /:\s*off\s*$/.test(lines[j]!)) j--;
        expect({ file, rule: line.trim(), reason: lines[j]?.trim().startsWith('#') }).toEqual({ file, rule: line.trim(), reason: true });
      });
    }
  });
});
