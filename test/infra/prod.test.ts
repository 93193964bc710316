/**
 * The prod stage with every option on (custom domain, WAF, alarm e-mail), synthesized
 * once with real bundling and cdk-nag: what differs from dev, and nothing else.
 */
import fs from 'node:fs';
import path from 'node:path';
import { Match } from 'aws-cdk-lib/assertions';
import { MAX_BODY_BYTES } from '../../contract/errors.js';
import { API_PREFIX } from '../../contract/routes.js';
import { REPO_ROOT, reservedConcurrency } from '../../infra/aws/functions.js';
import { THRESHOLDS } from '../../infra/aws/monitoring.js';
import { MANAGED_RULE_GROUPS, webAclName } from '../../infra/aws/waf.js';
import { flatten, logicalId, PROD_CONTEXT, resourcesOfType, stageOf } from './synth.js';

const CERT = PROD_CONTEXT.certificateArn;

const s = stageOf({ ...PROD_CONTEXT });

it('passes cdk-nag with no unacknowledged finding', () => {
  expect(s.report.pluginReports.flatMap((p) => p.violations)).toEqual([]);
});

it('is the DeploymentApi-prod stack', () => {
  expect(s.stack.stackName).toBe('DeploymentApi-prod');
});

it('retains the table on update and delete (not on a failed first create), with deletion protection', () => {
  s.template.hasResource('AWS::DynamoDB::Table', {
    DeletionPolicy: 'RetainExceptOnCreate',
    UpdateReplacePolicy: 'Retain',
    Properties: Match.objectLike({
      DeletionProtectionEnabled: true,
      PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
    }),
  });
});

it('retains the webhook key (rotating) and both webhook queues', () => {
  s.template.hasResource('AWS::KMS::Key', {
    DeletionPolicy: 'RetainExceptOnCreate',
    Properties: Match.objectLike({ EnableKeyRotation: true }),
  });
  const queues = resourcesOfType(s.json, 'AWS::SQS::Queue');
  expect(queues).toHaveLength(2);
  for (const [, q] of queues) expect(q.DeletionPolicy).toBe('RetainExceptOnCreate');
  s.template.resourceCountIs('AWS::Lambda::EventSourceMapping', 2);
});

it('keeps logs a year and retains them', () => {
  for (const [, lg] of resourcesOfType(s.json, 'AWS::Logs::LogGroup')) {
    expect(lg.Properties?.RetentionInDays).toBe(365);
    expect(lg.DeletionPolicy).toBe('RetainExceptOnCreate');
  }
});

it('throttles the prod stage at its own backstop', () => {
  s.template.hasResourceProperties('AWS::ApiGateway::Stage', {
    StageName: 'prod',
    MethodSettings: [Match.objectLike({ ThrottlingRateLimit: 500, ThrottlingBurstLimit: 1000 })],
  });
});

it('protects the stage with a WAF web ACL: a 413 for bodies over the limit, a 429 per address, then AWS managed rule groups', () => {
  const [, acl] = resourcesOfType(s.json, 'AWS::WAFv2::WebACL')[0]!;
  const p = acl.Properties!;
  expect(p).toMatchObject({ Scope: 'REGIONAL', DefaultAction: { Allow: {} } });
  // The size rule sees the whole body the handlers would take (64 KiB), and a larger one counts as a match.
  expect(p.AssociationConfig).toEqual({ RequestBody: { API_GATEWAY: { DefaultSizeInspectionLimit: 'KB_64' } } });
  const rules = p.Rules as any[];
  expect(rules.map((r) => r.Name)).toEqual([
    'BodyTooLarge',
    'RateLimitPerAddress',
    'RateLimitPerViewer',
    ...MANAGED_RULE_GROUPS.map((g) => g.name),
  ]);
  expect(rules.map((r) => r.Priority)).toEqual(rules.map((_, i) => i));
  expect(rules[0].Statement.SizeConstraintStatement).toEqual({
    FieldToMatch: { Body: { OversizeHandling: 'MATCH' } },
    ComparisonOperator: 'GT',
    Size: MAX_BODY_BYTES,
    TextTransformations: [{ Priority: 0, Type: 'NONE' }],
  });
  // The dashboard's API comes through CloudFront: counted per viewer (X-Forwarded-For), everything else per address.
  const dashboardApi = { ByteMatchStatement: expect.objectContaining({ FieldToMatch: { UriPath: {} }, SearchString: '/dashboard/api/' }) };
  expect(rules[1].Statement.RateBasedStatement).toEqual({
    AggregateKeyType: 'IP',
    Limit: 2000,
    EvaluationWindowSec: 300,
    ScopeDownStatement: { NotStatement: { Statement: dashboardApi } },
  });
  expect(rules[2].Statement.RateBasedStatement).toEqual({
    AggregateKeyType: 'FORWARDED_IP',
    ForwardedIPConfig: { HeaderName: 'X-Forwarded-For', FallbackBehavior: 'MATCH' },
    Limit: 2000,
    EvaluationWindowSec: 300,
    ScopeDownStatement: dashboardApi,
  });
  // Each of the two blocks answers with its own status and the error envelope, not one 429 for everything.
  for (const [i, status, code] of [
    [0, 413, 'PAYLOAD_TOO_LARGE'],
    [1, 429, 'RATE_LIMIT_EXCEEDED'],
    [2, 429, 'RATE_LIMIT_EXCEEDED'],
  ] as const) {
    const custom = rules[i].Action.Block.CustomResponse;
    expect(custom.ResponseCode).toBe(status);
    const body = p.CustomResponseBodies[custom.CustomResponseBodyKey];
    expect(body.ContentType).toBe('APPLICATION_JSON');
    expect(JSON.parse(body.Content)).toEqual({ error: { code, message: expect.any(String) } });
  }
  // Managed groups keep their own actions, but for the rules that would refuse valid requests.
  for (const group of MANAGED_RULE_GROUPS) {
    const rule = rules.find((r) => r.Name === group.name);
    expect(rule.OverrideAction).toEqual({ None: {} });
    expect(rule.Statement.ManagedRuleGroupStatement.VendorName).toBe('AWS');
    const counted = (rule.Statement.ManagedRuleGroupStatement.RuleActionOverrides ?? []).map((o: any) => [o.Name, o.ActionToUse]);
    expect(counted).toEqual(group.count.map((n) => [n, { Count: {} }]));
  }
  expect(MANAGED_RULE_GROUPS.find((g) => g.name === 'AWSManagedRulesCommonRuleSet')?.count).toContain('SizeRestrictions_BODY');
  // A block by a managed group is reported as what it is, a refusal, not as a rate limit.
  const filtered = resourcesOfType(s.json, 'AWS::ApiGateway::GatewayResponse').find(
    ([, r]) => r.Properties?.ResponseType === 'WAF_FILTERED',
  )!;
  expect(filtered[1].Properties?.StatusCode).toBe('403');
  const assocs = resourcesOfType(s.json, 'AWS::WAFv2::WebACLAssociation');
  expect(assocs).toHaveLength(1);
  const assoc = assocs[0]![1].Properties!;
  expect(assoc.WebACLArn).toEqual({ 'Fn::GetAtt': [logicalId(s.stack.api.webAcl!), 'Arn'] });
  expect(flatten(assoc.ResourceArn)).toContain('/stages/');
});

it("alarms on the web ACL's blocked requests, found by the name its metrics carry, and makes it a ticket", () => {
  const [, acl] = resourcesOfType(s.json, 'AWS::WAFv2::WebACL')[0]!;
  expect(acl.Properties?.Name).toBe(webAclName('prod'));
  expect(acl.Properties?.VisibilityConfig.MetricName).toBe(webAclName('prod'));
  const blocked = resourcesOfType(s.all, 'AWS::CloudWatch::Alarm').filter(
    ([, a]) => a.Properties?.AlarmName === 'DeploymentApi-prod-WafBlockedRequests',
  );
  expect(blocked).toHaveLength(1);
  const [id, alarm] = blocked[0]!;
  const [stat] = (alarm.Properties!.Metrics as any[]).map((m) => m.MetricStat);
  expect(stat.Metric).toEqual({
    Namespace: 'AWS/WAFV2',
    MetricName: 'BlockedRequests',
    Dimensions: expect.arrayContaining([
      { Name: 'WebACL', Value: webAclName('prod') },
      { Name: 'Rule', Value: 'ALL' },
      { Name: 'Region', Value: expect.anything() },
    ]),
  });
  expect(alarm.Properties?.Threshold).toBe(THRESHOLDS.wafBlockedPer5Minutes);
  expect(alarm.Properties?.AlarmActions).toBeUndefined();
  const [, degraded] = resourcesOfType(s.all, 'AWS::CloudWatch::CompositeAlarm').find(
    ([, c]) => c.Properties?.AlarmName === 'DeploymentApi-prod-ServiceDegraded',
  )!;
  expect(JSON.stringify(degraded.Properties?.AlarmRule)).toContain(`"${id}"`);
});

it('never keeps a resource past a failed first create: nothing is plainly Retain', () => {
  const kept = Object.entries(s.json.Resources).filter(([, r]) => r.DeletionPolicy === 'Retain');
  expect(kept.map(([id]) => id)).toEqual([]);
});

it('with -c reservedConcurrency=true, reserves concurrency for every function: 1 for the reconciler, more for the long-polling wait', () => {
  for (const f of s.stack.functions.all) {
    expect({ fn: f.name, n: s.json.Resources[logicalId(f.fn)]!.Properties?.ReservedConcurrentExecutions }).toEqual({
      fn: f.name,
      n: reservedConcurrency(f.kind, f.name),
    });
  }
  expect(reservedConcurrency('workflow', 'reconcile-operations')).toBe(1);
  const total = s.stack.functions.all.reduce((n, f) => n + reservedConcurrency(f.kind, f.name), 0);
  // AWS keeps 100 of an account's usual 1,000 unreserved.
  expect(total).toBeLessThanOrEqual(900);
  // The quota check in docs/deploy.md names the same total.
  const docs = fs.readFileSync(path.join(REPO_ROOT, 'docs/deploy.md'), 'utf8');
  expect(docs).toContain(`the stack reserves ${total} in all`);
  expect(docs).toContain(`must be at least ${total}.`);
});

it('serves the API only on the custom domain (TLS 1.3/1.2 with forward secrecy, strict, regional) at the root, and says so in ApiUrl', () => {
  s.template.hasResourceProperties('AWS::ApiGateway::DomainName', {
    DomainName: 'api.example.org',
    RegionalCertificateArn: CERT,
    EndpointConfiguration: { Types: ['REGIONAL'] },
    SecurityPolicy: 'SecurityPolicy_TLS13_1_2_PFS_PQ_2025_09',
    EndpointAccessMode: 'STRICT',
  });
  // The default execute-api endpoint would be a second door, without the domain's TLS policy.
  s.template.hasResourceProperties('AWS::ApiGateway::RestApi', { DisableExecuteApiEndpoint: true });
  const mappings = resourcesOfType(s.json, 'AWS::ApiGateway::BasePathMapping');
  expect(mappings).toHaveLength(1);
  expect(mappings[0]![1].Properties?.BasePath).toBeUndefined();
  expect(s.json.Outputs!.ApiUrl!.Value).toBe(`https://api.example.org${API_PREFIX}`);
  expect(s.json.Outputs!.CustomDomainTarget).toBeDefined();
});

it('mails the alarm topic, and passes the app domain to the functions', () => {
  // The topic lives in the nested Operations stack.
  expect(resourcesOfType(s.all, 'AWS::SNS::Subscription').map(([, r]) => r.Properties)).toEqual([
    expect.objectContaining({ Protocol: 'email', Endpoint: 'oncall@example.org' }),
  ]);
  for (const f of s.stack.functions.all) {
    expect(s.json.Resources[logicalId(f.fn)]!.Properties?.Environment.Variables.APP_DOMAIN).toBe('apps.example.org');
  }
});

it("sends the dashboard's API to the custom domain, since the execute-api endpoint is off", () => {
  const [, dist] = resourcesOfType(s.json, 'AWS::CloudFront::Distribution')[0]!;
  const config = dist.Properties!.DistributionConfig;
  const behavior = (config.CacheBehaviors as any[]).find((b) => b.PathPattern === '/dashboard/api/*');
  const origin = (config.Origins as any[]).find((o) => o.Id === behavior.TargetOriginId);
  expect(origin.DomainName).toBe('api.example.org');
  expect(origin.OriginPath ?? '').toBe('');
  expect(origin.CustomOriginConfig.OriginProtocolPolicy).toBe('https-only');
});

it("refuses, before creating anything, a certificate from another region than the stack's", () => {
  const rules = (s.json as { Rules?: Record<string, any> }).Rules ?? {};
  const rule = Object.values(rules).find((r) => JSON.stringify(r).includes('eu-west-1'));
  expect(rule.Assertions[0]).toEqual({
    Assert: { 'Fn::Equals': [{ Ref: 'AWS::Region' }, 'eu-west-1'] },
    AssertDescription: expect.stringContaining("in the stack's region"),
  });
});
