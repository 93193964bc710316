/**
 * The API's web ACL (on the stages whose settings turn WAF on): a body larger than the API
 * takes, per-address and per-viewer rates, then AWS's managed rule groups; each block by a
 * rule of its own answers with the service's error envelope.
 */
import * as wafv2 from 'aws-cdk-lib/aws-wafv2';
import type { Construct } from 'constructs';
import { DASHBOARD_API_PREFIX } from '../../contract/dashboard-routes.js';
import { MAX_BODY_BYTES } from '../../contract/errors.js';
import type { Settings } from './settings.js';

/**
 * The web ACL and its association with the API's stage, made in `scope` (the ServiceApi
 * construct, whose path their logical ids keep).
 */
export function addWebAcl(scope: Construct, stageArn: string, settings: Settings): wafv2.CfnWebACL {
  const name = webAclName(settings.stage);
  const metric = (suffix: string) => ({
    cloudWatchMetricsEnabled: true,
    sampledRequestsEnabled: true,
    metricName: `${name}${suffix}`,
  });
  const acl = new wafv2.CfnWebACL(scope, 'WebAcl', {
    // Named as its metrics are, so the alarm on its blocked requests finds them by either (decision 194).
    name,
    scope: 'REGIONAL',
    defaultAction: { allow: {} },
    visibilityConfig: metric(''),
    // Inspect bodies up to the API's own limit, so the size rule sees what the handlers would.
    associationConfig: { requestBody: { API_GATEWAY: { defaultSizeInspectionLimit: 'KB_64' } } },
    customResponseBodies: Object.fromEntries(
      WAF_BLOCKS.map((b) => [b.bodyKey, { contentType: 'APPLICATION_JSON', content: wafResponseBody(b) }]),
    ),
    rules: wafRules(settings).map((rule, priority) => ({ ...rule, priority, visibilityConfig: metric(`-${rule.name}`) })),
  });
  new wafv2.CfnWebACLAssociation(scope, 'WebAclAssociation', {
    resourceArn: stageArn,
    webAclArn: acl.attrArn,
  });
  return acl;
}

/** The API's web ACL's name and the CloudWatch metric name of its requests: one per stage (and region). */
export const webAclName = (stage: string): string => `deployment-api-${stage}`;

/** A WAF rule's own answer: a status and the error envelope. WAF knows no request id, so the body has none. */
export interface WafBlock {
  readonly rule: string;
  readonly status: number;
  readonly code: string;
  readonly message: string;
  readonly bodyKey: string;
}

export const WAF_BLOCKS: readonly WafBlock[] = [
  {
    rule: 'BodyTooLarge',
    status: 413,
    code: 'PAYLOAD_TOO_LARGE',
    message: `The request body exceeds ${MAX_BODY_BYTES} bytes.`,
    bodyKey: 'payload-too-large',
  },
  {
    rule: 'RateLimitPerAddress',
    status: 429,
    code: 'RATE_LIMIT_EXCEEDED',
    message: 'Too many requests from this address. Retry after 60 seconds.',
    bodyKey: 'rate-limited',
  },
];

export const wafResponseBody = (b: WafBlock): string => JSON.stringify({ error: { code: b.code, message: b.message } });

const blockWith = (rule: string) => {
  const b = WAF_BLOCKS.find((x) => x.rule === rule)!;
  return { block: { customResponse: { responseCode: b.status, customResponseBodyKey: b.bodyKey } } };
};

/** Requests for the dashboard's API, which reach the stage through CloudFront. */
const DASHBOARD_API_PATH: wafv2.CfnWebACL.StatementProperty = {
  byteMatchStatement: {
    fieldToMatch: { uriPath: {} },
    positionalConstraint: 'STARTS_WITH',
    searchString: `${DASHBOARD_API_PREFIX}/`,
    textTransformations: [{ priority: 0, type: 'NONE' }],
  },
};

/** AWS managed rule groups, in order; the rules named in `count` only count, because they would refuse valid requests. */
export const MANAGED_RULE_GROUPS: readonly { name: string; count: readonly string[] }[] = [
  // IPs AWS has seen attacking (bots, reconnaissance).
  { name: 'AWSManagedRulesAmazonIpReputationList', count: [] },
  // Bodies up to 64 KiB are valid here (decision 8; the size rule enforces it), and a webhook URL may
  // name a public IPv4 address, which the remote-file-inclusion rule reads as an attack.
  { name: 'AWSManagedRulesCommonRuleSet', count: ['SizeRestrictions_BODY', 'GenericRFI_BODY'] },
  // Request patterns of known exploits (Log4j, Java deserialization, localhost host headers).
  { name: 'AWSManagedRulesKnownBadInputsRuleSet', count: [] },
];

/** The web ACL's rules, in priority order: a body larger than the API takes, the per-address rates, then the managed groups. */
function wafRules(settings: Settings): Omit<wafv2.CfnWebACL.RuleProperty, 'priority' | 'visibilityConfig'>[] {
  return [
    {
      // API Gateway takes bodies up to 10 MB and Lambda 6 MB: without this a 6-10 MB body is a 500.
      name: 'BodyTooLarge',
      action: blockWith('BodyTooLarge'),
      statement: {
        sizeConstraintStatement: {
          fieldToMatch: { body: { oversizeHandling: 'MATCH' } },
          comparisonOperator: 'GT',
          size: MAX_BODY_BYTES,
          textTransformations: [{ priority: 0, type: 'NONE' }],
        },
      },
    },
    {
      name: 'RateLimitPerAddress',
      action: blockWith('RateLimitPerAddress'),
      statement: {
        rateBasedStatement: {
          aggregateKeyType: 'IP',
          limit: settings.wafRateLimitPer5Min,
          evaluationWindowSec: 300,
          scopeDownStatement: { notStatement: { statement: DASHBOARD_API_PATH } },
        },
      },
    },
    {
      // The dashboard's API comes through CloudFront, whose edge addresses carry many users each:
      // counted per viewer address, the one CloudFront appends to X-Forwarded-For (decision 154).
      name: 'RateLimitPerViewer',
      action: blockWith('RateLimitPerAddress'),
      statement: {
        rateBasedStatement: {
          aggregateKeyType: 'FORWARDED_IP',
          forwardedIpConfig: { headerName: 'X-Forwarded-For', fallbackBehavior: 'MATCH' },
          limit: settings.wafRateLimitPer5Min,
          evaluationWindowSec: 300,
          scopeDownStatement: DASHBOARD_API_PATH,
        },
      },
    },
    ...MANAGED_RULE_GROUPS.map((group) => ({
      name: group.name,
      overrideAction: { none: {} },
      statement: {
        managedRuleGroupStatement: {
          vendorName: 'AWS',
          name: group.name,
          ruleActionOverrides: group.count.length ? group.count.map((name) => ({ name, actionToUse: { count: {} } })) : undefined,
        },
      },
    })),
  ];
}
