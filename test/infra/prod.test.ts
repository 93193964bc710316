/**
 * The prod stage with every option on (custom domain, WAF, alarm e-mail), synthesized
 * once with real bundling and cdk-nag: what differs from dev, and nothing else.
 */
import { Match } from 'aws-cdk-lib/assertions';
import { API_PREFIX } from '../../functions/routes.js';
import { cleanup, flatten, logicalId, resourcesOfType, type Synthesized, synth } from './synth.js';

const CERT = 'arn:aws:acm:eu-west-1:123456789012:certificate/0c8d6a2e-1111-2222-3333-444455556666';

let s: Synthesized;
beforeAll(() => {
  s = synth({
    stage: 'prod',
    domainName: 'api.example.org',
    certificateArn: CERT,
    alarmEmail: 'oncall@example.org',
    appDomain: 'apps.example.org',
  });
}, 120_000);
afterAll(() => cleanup(s));

it('passes cdk-nag with no unacknowledged finding', () => {
  expect(s.report.pluginReports.flatMap((p) => p.violations)).toEqual([]);
});

it('is the DeploymentApi-prod stack', () => {
  expect(s.stack.stackName).toBe('DeploymentApi-prod');
});

it('retains the table, with deletion protection', () => {
  s.template.hasResource('AWS::DynamoDB::Table', {
    DeletionPolicy: 'Retain',
    UpdateReplacePolicy: 'Retain',
    Properties: Match.objectLike({
      DeletionProtectionEnabled: true,
      PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
    }),
  });
});

it('retains the webhook key (rotating) and both webhook queues', () => {
  s.template.hasResource('AWS::KMS::Key', { DeletionPolicy: 'Retain', Properties: Match.objectLike({ EnableKeyRotation: true }) });
  const queues = resourcesOfType(s.json, 'AWS::SQS::Queue');
  expect(queues).toHaveLength(2);
  for (const [, q] of queues) expect(q.DeletionPolicy).toBe('Retain');
  s.template.resourceCountIs('AWS::Lambda::EventSourceMapping', 2);
});

it('keeps logs a year and retains them', () => {
  for (const [, lg] of resourcesOfType(s.json, 'AWS::Logs::LogGroup')) {
    expect(lg.Properties?.RetentionInDays).toBe(365);
    expect(lg.DeletionPolicy).toBe('Retain');
  }
});

it('throttles the prod stage at its own backstop', () => {
  s.template.hasResourceProperties('AWS::ApiGateway::Stage', {
    StageName: 'prod',
    MethodSettings: [Match.objectLike({ ThrottlingRateLimit: 500, ThrottlingBurstLimit: 1000 })],
  });
});

it('protects the stage with a WAF web ACL whose one rule is a per-address rate limit', () => {
  s.template.hasResourceProperties('AWS::WAFv2::WebACL', {
    Scope: 'REGIONAL',
    DefaultAction: { Allow: {} },
    Rules: [
      Match.objectLike({
        Action: { Block: {} },
        Statement: { RateBasedStatement: { AggregateKeyType: 'IP', Limit: 2000, EvaluationWindowSec: 300 } },
      }),
    ],
  });
  const assocs = resourcesOfType(s.json, 'AWS::WAFv2::WebACLAssociation');
  expect(assocs).toHaveLength(1);
  const assoc = assocs[0]![1].Properties!;
  expect(assoc.WebACLArn).toEqual({ 'Fn::GetAtt': [logicalId(s.stack.api.webAcl!), 'Arn'] });
  expect(flatten(assoc.ResourceArn)).toContain('/stages/');
});

it('serves the API on the custom domain (TLS 1.2, regional) at the root, and says so in ApiUrl', () => {
  s.template.hasResourceProperties('AWS::ApiGateway::DomainName', {
    DomainName: 'api.example.org',
    RegionalCertificateArn: CERT,
    EndpointConfiguration: { Types: ['REGIONAL'] },
    SecurityPolicy: 'TLS_1_2',
  });
  const mappings = resourcesOfType(s.json, 'AWS::ApiGateway::BasePathMapping');
  expect(mappings).toHaveLength(1);
  expect(mappings[0]![1].Properties?.BasePath).toBeUndefined();
  expect(s.json.Outputs!.ApiUrl!.Value).toBe(`https://api.example.org${API_PREFIX}`);
  expect(s.json.Outputs!.CustomDomainTarget).toBeDefined();
});

it('mails the alarm topic, and passes the app domain to the functions', () => {
  s.template.hasResourceProperties('AWS::SNS::Subscription', { Protocol: 'email', Endpoint: 'oncall@example.org' });
  for (const f of s.stack.functions.all) {
    expect(s.json.Resources[logicalId(f.fn)]!.Properties?.Environment.Variables.APP_DOMAIN).toBe('apps.example.org');
  }
});
