/**
 * CloudFormation's and Lambda's hard limits, with room to grow (decision 151): the prod
 * stack stays 125 resources under the 500 a stack may hold, each function's resource
 * policy under half of Lambda's 20 KB, and a change adds or removes at most one of the
 * table's global secondary indexes (one per update) compared with test/infra/gsi-baseline.json.
 */
import fs from 'node:fs';
import path from 'node:path';
import { synthPlatform } from './platform-synth.js';
import { escapeRegExp, flatten, logicalId, PROD_CONTEXT, resourcesOfType, stageOf } from './synth.js';

/** CloudFormation's limit on resources in one stack (nested stacks count one each in their parent). */
const STACK_RESOURCE_LIMIT = 500;
const RESOURCE_HEADROOM = 125;
/** Lambda's limit on a function's resource-based policy. */
const LAMBDA_POLICY_LIMIT_BYTES = 20 * 1024;

const s = stageOf({ ...PROD_CONTEXT });

/** How long a reference may become once deployed: an ARN or id in place of each token. */
const resolvedLength = (value: unknown): number => flatten(value).replace(/<(Ref|GetAtt):[^>]*>/g, 'x'.repeat(140)).length;

describe('stack size', () => {
  it(`keeps the prod stack and each nested stack at least ${RESOURCE_HEADROOM} resources under ${STACK_RESOURCE_LIMIT}`, () => {
    const counts = {
      parent: Object.keys(s.json.Resources).length,
      ...Object.fromEntries(Object.entries(s.nested).map(([id, t]) => [id, Object.keys(t.Resources).length])),
    };
    for (const [stack, n] of Object.entries(counts))
      expect({ stack, n, under: n <= STACK_RESOURCE_LIMIT - RESOURCE_HEADROOM }).toEqual({ stack, n, under: true });
  });

  it('gives every function a resource policy under half its 20 KB limit', () => {
    for (const f of s.stack.functions.all) {
      const arn = logicalId(f.fn);
      const permissions = resourcesOfType(s.json, 'AWS::Lambda::Permission').filter(([, p]) =>
        flatten(p.Properties?.FunctionName).includes(arn),
      );
      // One statement per permission: its id, effect, principal, action, the function's ARN and the source condition.
      const bytes = permissions.reduce(
        (n, [, p]) =>
          n +
          200 +
          resolvedLength(p.Properties?.SourceArn) +
          resolvedLength(p.Properties?.FunctionName) +
          String(p.Properties?.Principal).length,
        100,
      );
      expect({ fn: f.name, small: bytes < LAMBDA_POLICY_LIMIT_BYTES / 2 }).toEqual({ fn: f.name, small: true });
    }
  });
});

describe('stack size with -c platform=ecs', () => {
  it(`keeps the platform stack, and the API stack beside it, at least ${RESOURCE_HEADROOM} resources under ${STACK_RESOURCE_LIMIT}`, () => {
    // The ALB shards are the part that grows: the most shards the context allows.
    const p = synthPlatform({ ...PROD_CONTEXT, platform: 'ecs', hostedZoneId: 'Z0123456789ABCDEFGHIJ', albShards: '10' });
    const counts = {
      platform: Object.keys(p.platformJson.Resources).length,
      api: Object.keys(p.apiJson.Resources).length,
      operations: Object.keys(p.nestedJson.Resources).length,
    };
    for (const [stack, n] of Object.entries(counts))
      expect({ stack, n, under: n <= STACK_RESOURCE_LIMIT - RESOURCE_HEADROOM }).toEqual({ stack, n, under: true });
    // The platform adds no resource to the API stack: only its environment, grants and parameters.
    expect(counts.api).toBe(Object.keys(s.json.Resources).length);
  }, 120_000);
});

describe('docs/deploy.md', () => {
  it("states the prod stack's size as the template has it", () => {
    const docs = fs.readFileSync(path.join(import.meta.dirname, '../../docs/deploy.md'), 'utf8');
    const row = (label: string) => Number(new RegExp(`^\\| ${escapeRegExp(label)} +\\| (\\d+) +\\|$`, 'm').exec(docs)?.[1]);
    const count = (type: string) => resourcesOfType(s.all, type).length;
    const [nested] = Object.values(s.nested);
    expect({
      parent: row('Resources in `DeploymentApi-prod`'),
      nested: row('Resources in its nested `Operations` stack'),
      functions: row("Lambda functions (CDK's BucketDeployment included)"),
      methods: row('API Gateway methods'),
      alarms: row('CloudWatch alarms'),
      composites: row('CloudWatch composite alarms'),
    }).toEqual({
      parent: Object.keys(s.json.Resources).length,
      nested: Object.keys(nested!.Resources).length,
      functions: count('AWS::Lambda::Function'),
      methods: count('AWS::ApiGateway::Method'),
      alarms: count('AWS::CloudWatch::Alarm'),
      composites: count('AWS::CloudWatch::CompositeAlarm'),
    });
  });
});

describe('global secondary indexes', () => {
  it('adds or removes at most one index compared with the deployed baseline (CloudFormation changes one per update)', () => {
    const baseline: string[] = JSON.parse(fs.readFileSync(path.join(import.meta.dirname, 'gsi-baseline.json'), 'utf8')).indexes;
    const [, table] = resourcesOfType(s.json, 'AWS::DynamoDB::Table')[0]!;
    const now = ((table.Properties?.GlobalSecondaryIndexes ?? []) as { IndexName: string }[]).map((i) => i.IndexName);
    const added = now.filter((n) => !baseline.includes(n));
    const removed = baseline.filter((n) => !now.includes(n));
    expect({ added, removed, changes: added.length + removed.length <= 1 }).toEqual({ added, removed, changes: true });
  });
});
