/**
 * Synthesizes the real CDK app (local esbuild bundling, cdk-nag on) once per test
 * file, and helpers to read the template the way the stack built it.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { type CfnElement, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import type { IConstruct } from 'constructs';
import { type BuiltApp, buildApp } from '../../infra/aws/app.js';

export interface Synthesized extends BuiltApp {
  template: Template;
  json: CfnTemplate;
  outdir: string;
  /** The cdk-nag report the synth wrote (unacknowledged findings only). */
  report: ValidationReport;
}

export interface CfnResource {
  Type: string;
  Properties?: Record<string, any>;
  DeletionPolicy?: string;
  UpdateReplacePolicy?: string;
}
export interface CfnTemplate {
  Resources: Record<string, CfnResource>;
  Outputs?: Record<string, { Value: unknown }>;
}

interface ValidationReport {
  pluginReports: {
    pluginName: string;
    violations: { ruleName: string; severity: string; violatingConstructs: { constructPath: string }[] }[];
  }[];
}

/** Throws (with cdk-nag's report) if any finding is neither fixed nor acknowledged. */
export function synth(context: Record<string, string>): Synthesized {
  const outdir = fs.mkdtempSync(path.join(os.tmpdir(), 'cdk-test-'));
  const built = buildApp({ context, outdir, nag: true });
  const assembly = built.app.synth();
  const json = assembly.getStackArtifact(built.stack.artifactId).template as CfnTemplate;
  const reportFile = path.join(outdir, 'validation-report.json');
  const report: ValidationReport = fs.existsSync(reportFile) ? JSON.parse(fs.readFileSync(reportFile, 'utf8')) : { pluginReports: [] };
  return { ...built, template: Template.fromJSON(json), json, outdir, report };
}

export function cleanup(s: Synthesized | undefined): void {
  if (s) fs.rmSync(s.outdir, { recursive: true, force: true });
}

/** The logical id of a construct's CloudFormation resource (its default child for L2s). */
export function logicalId(c: IConstruct): string {
  const element = (c.node.defaultChild ?? c) as CfnElement;
  return Stack.of(c).resolve(element.logicalId) as string;
}

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

export function statementsOfRole(json: CfnTemplate, roleLogicalId: string): Statement[] {
  return resourcesOfType(json, 'AWS::IAM::Policy')
    .filter(([, p]) => ((p.Properties?.Roles ?? []) as unknown[]).some((r) => flatten(r) === `<Ref:${roleLogicalId}>`))
    .flatMap(([, p]) => p.Properties?.PolicyDocument.Statement);
}

export const actionsOf = (s: { Action: string | string[] }): string[] => (Array.isArray(s.Action) ? s.Action : [s.Action]);
export const resourcesOf = (s: { Resource?: unknown }): unknown[] => (Array.isArray(s.Resource) ? s.Resource : [s.Resource]);
