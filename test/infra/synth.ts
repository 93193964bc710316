/**
 * Synthesizes the real CDK app (local esbuild bundling, cdk-nag on) and helpers to read
 * the template the way the stack built it.
 *
 * A synthesis with bundling takes a minute or two, and the dev stage is read by one test
 * file per module of infra/aws, so each stage's cloud assembly is made once and kept in
 * the system's temporary directory under a hash of what synthesis reads; every later file
 * (and run) with the same sources reads it. The construct tree, which tests ask for
 * logical ids, is built again in each file without bundling, which takes seconds: bundling
 * changes asset hashes, never logical ids.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { type CfnElement, NestedStack, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import type { IConstruct } from 'constructs';
import { type BuiltApp, buildApp } from '../../infra/aws/app.js';
import type { FunctionName } from '../../infra/aws/function-access.js';

export interface Synthesized extends BuiltApp {
  template: Template;
  json: CfnTemplate;
  /**
   * The stack and its nested stacks in one: each nested template's resources, their
   * parameters replaced by what the parent passes (so a reference to a parent resource
   * reads `{ Ref: <its logical id> }` as it would in the parent).
   */
  all: CfnTemplate;
  /** Each nested stack's own template, by the logical id of its AWS::CloudFormation::Stack in the parent. */
  nested: Record<string, CfnTemplate>;
  /** The cloud assembly, shared: the bundles are read from it, nothing is written. */
  outdir: string;
  /** Where this file's construct tree staged its (unbundled) assets. */
  treeDir: string;
  /** The cdk-nag report the synth wrote (unacknowledged findings only). */
  report: ValidationReport;
}

export interface CfnResource {
  Type: string;
  Properties?: Record<string, any>;
  Metadata?: Record<string, any>;
  DeletionPolicy?: string;
  UpdateReplacePolicy?: string;
}
export interface CfnTemplate {
  Resources: Record<string, CfnResource>;
  Parameters?: Record<string, unknown>;
  Outputs?: Record<string, { Value: unknown }>;
}

interface ValidationReport {
  pluginReports: {
    pluginName: string;
    violations: { ruleName: string; severity: string; violatingConstructs: { constructPath: string }[] }[];
  }[];
}

const ROOT = path.resolve(import.meta.dirname, '../..');
/** What synthesis reads, besides the context: a change to any of it makes a new assembly. */
const INPUTS = [
  'functions',
  'infra',
  'statemachines',
  'dashboard',
  'client',
  'bin/app.ts',
  'package-lock.json',
  'tsconfig.json',
  'tsconfig.base.json',
  'cdk.json',
];
const CACHE = path.join(os.tmpdir(), 'deployment-api-synth');
/** Another worker synthesizing the same assembly is waited for this long; a lock older than this is a crashed run's. */
const SYNTH_MS = 10 * 60_000;

function assemblyKey(context: Record<string, string>): string {
  const env = [process.env.CDK_DEFAULT_ACCOUNT, process.env.CDK_DEFAULT_REGION, process.version];
  const hash = createHash('sha256').update(JSON.stringify({ context, env }));
  for (const input of INPUTS) {
    const full = path.join(ROOT, input);
    if (!fs.existsSync(full)) continue;
    const files = fs.statSync(full).isDirectory()
      ? fs.readdirSync(full, { recursive: true, encoding: 'utf8' }).map((f) => path.join(input, f))
      : [input];
    for (const file of files.sort()) {
      const bytes = fs.statSync(path.join(ROOT, file)).isFile() ? fs.readFileSync(path.join(ROOT, file)) : '';
      hash.update(`${file}\0`).update(bytes);
    }
  }
  return hash.digest('hex').slice(0, 20);
}

/** Synthesizes into `outdir` by way of a temporary directory, so a reader never sees half an assembly. */
function synthesizeInto(context: Record<string, string>, outdir: string): void {
  const staging = fs.mkdtempSync(`${outdir}.staging-`);
  try {
    buildApp({ context, outdir: staging, nag: true }).app.synth();
    fs.renameSync(staging, outdir);
  } finally {
    fs.rmSync(staging, { recursive: true, force: true });
  }
}

/** The stage's assembly directory: made here, or by another test file of this run or an earlier one. */
async function assembly(context: Record<string, string>): Promise<string> {
  fs.mkdirSync(CACHE, { recursive: true });
  const outdir = path.join(CACHE, assemblyKey(context));
  const lock = `${outdir}.lock`;
  const deadline = Date.now() + SYNTH_MS;
  while (!fs.existsSync(outdir)) {
    try {
      fs.mkdirSync(lock);
    } catch {
      if (Date.now() - (fs.statSync(lock, { throwIfNoEntry: false })?.mtimeMs ?? Date.now()) > SYNTH_MS)
        fs.rmSync(lock, { recursive: true, force: true });
      else if (Date.now() > deadline) throw new Error(`No assembly at ${outdir} after ${SYNTH_MS} ms; remove ${lock} if no test runs.`);
      await new Promise((r) => setTimeout(r, 500));
      continue;
    }
    try {
      if (!fs.existsSync(outdir)) synthesizeInto(context, outdir);
    } finally {
      fs.rmSync(lock, { recursive: true, force: true });
    }
  }
  return outdir;
}

/** Throws (with cdk-nag's report) if any finding is neither fixed nor acknowledged. */
export async function synth(context: Record<string, string>): Promise<Synthesized> {
  const outdir = await assembly(context);
  // The same construct tree, without bundling, into a directory of its own (assets are staged as they are declared).
  const treeDir = fs.mkdtempSync(path.join(os.tmpdir(), 'cdk-test-'));
  const built = buildApp({ context: { ...context, 'aws:cdk:bundling-stacks': [] }, outdir: treeDir, nag: false });
  const manifest = JSON.parse(fs.readFileSync(path.join(outdir, 'manifest.json'), 'utf8'));
  const templateFile = manifest.artifacts[built.stack.artifactId].properties.templateFile as string;
  const json = JSON.parse(fs.readFileSync(path.join(outdir, templateFile), 'utf8')) as CfnTemplate;
  const reportFile = path.join(outdir, 'validation-report.json');
  const report: ValidationReport = fs.existsSync(reportFile) ? JSON.parse(fs.readFileSync(reportFile, 'utf8')) : { pluginReports: [] };
  const nested: Record<string, CfnTemplate> = {};
  const all: CfnTemplate = { ...json, Resources: { ...json.Resources } };
  for (const stack of built.stack.node.findAll().filter(NestedStack.isNestedStack)) {
    const id = logicalId(stack.nestedStackResource!);
    const child = JSON.parse(fs.readFileSync(path.join(outdir, stack.templateFile), 'utf8')) as CfnTemplate;
    nested[id] = child;
    const passed = (json.Resources[id]?.Properties?.Parameters ?? {}) as Record<string, unknown>;
    const substituted = JSON.parse(JSON.stringify(child.Resources), (_k, v) =>
      v && typeof v === 'object' && typeof v.Ref === 'string' && v.Ref in passed ? passed[v.Ref] : v,
    );
    Object.assign(all.Resources, substituted);
  }
  return { ...built, template: Template.fromJSON(json), json, all, nested, outdir, treeDir, report };
}

/** The context of the prod stage with every option on, shared by the test files that read it (one assembly). */
export const PROD_CONTEXT: Readonly<Record<string, string>> = {
  stage: 'prod',
  domainName: 'api.example.org',
  certificateArn: 'arn:aws:acm:eu-west-1:123456789012:certificate/0c8d6a2e-1111-2222-3333-444455556666',
  alarmEmail: 'oncall@example.org',
  appDomain: 'apps.example.org',
  reservedConcurrency: 'true',
};

/** Removes the file's construct tree; the assembly stays for the next file. */
export function cleanup(s: Synthesized | undefined): void {
  if (s?.treeDir) fs.rmSync(s.treeDir, { recursive: true, force: true });
}

/** The stage a test file reads: filled in before its first test, its construct tree removed after its last. */
export function stageOf(context: Record<string, string>): Synthesized {
  const s = {} as Synthesized;
  beforeAll(async () => {
    Object.assign(s, await synth(context));
  }, SYNTH_MS);
  afterAll(() => cleanup(s));
  return s;
}

/** The logical id of a construct's CloudFormation resource (its default child for L2s). */
export function logicalId(c: IConstruct): string {
  const element = (c.node.defaultChild ?? c) as CfnElement;
  return Stack.of(c).resolve(element.logicalId) as string;
}

/** The logical id of a function of the stack. */
export const fnId = (s: Synthesized, name: FunctionName): string => logicalId(s.stack.functions.get(name).fn);

export function resourcesOfType(json: CfnTemplate, type: string): [string, CfnResource][] {
  return Object.entries(json.Resources).filter(([, r]) => r.Type === type);
}

/** Flattens a resolved `Fn::Join` of strings and references into text (refs as `<Ref:id>` / `<GetAtt:id.attr>`). */
export function flatten(value: unknown): string {
  if (value === undefined) return 'undefined';
  if (typeof value === 'string') return value;
  if (value && typeof value === 'object') {
    const v = value as Record<string, any>;
    if (v['Fn::Join']) return (v['Fn::Join'][1] as unknown[]).map(flatten).join(v['Fn::Join'][0]);
    if (v.Ref) return `<Ref:${v.Ref}>`;
    if (v['Fn::GetAtt']) return `<GetAtt:${v['Fn::GetAtt'][0]}.${v['Fn::GetAtt'][1]}>`;
  }
  return JSON.stringify(value);
}

/** Every IAM statement of the policies attached to a role. */
export interface Statement {
  Action: string | string[];
  Resource: unknown;
  Effect: string;
}

/**
 * Every identity policy of the template with the logical ids of its roles: the
 * AWS::IAM::Policy resources and the roles' inline policies (the functions' roles keep
 * theirs inline, infra/aws/functions.ts FunctionRole).
 */
export function policiesOf(json: CfnTemplate): { roles: string[]; statements: Statement[] }[] {
  const attached = resourcesOfType(json, 'AWS::IAM::Policy').map(([, p]) => ({
    roles: ((p.Properties?.Roles ?? []) as unknown[]).map((r) => flatten(r).replace(/^<Ref:(.*)>$/, '$1')),
    statements: (p.Properties?.PolicyDocument.Statement ?? []) as Statement[],
  }));
  const inline = resourcesOfType(json, 'AWS::IAM::Role').flatMap(([id, r]) =>
    ((r.Properties?.Policies ?? []) as { PolicyDocument: { Statement: Statement[] } }[]).map((p) => ({
      roles: [id],
      statements: p.PolicyDocument.Statement,
    })),
  );
  return [...attached, ...inline];
}

export function statementsOfRole(json: CfnTemplate, roleLogicalId: string): Statement[] {
  return policiesOf(json)
    .filter((p) => p.roles.includes(roleLogicalId))
    .flatMap((p) => p.statements);
}

export const actionsOf = (s: { Action: string | string[] }): string[] => (Array.isArray(s.Action) ? s.Action : [s.Action]);
export const resourcesOf = (s: { Resource?: unknown }): unknown[] => (Array.isArray(s.Resource) ? s.Resource : [s.Resource]);

export const escapeRegExp = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
