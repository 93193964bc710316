/**
 * The REST API, built by looping over the route table: one method per route, an ANY
 * method on every resource under the prefix and a `{proxy+}` catch-all, both answered
 * by route-not-found (405 with Allow for a known path, 404 otherwise; API Gateway
 * prefers a resource's specific method over its ANY). What API Gateway answers by
 * itself (throttling, unknown paths outside the prefix, integration faults) keeps the
 * service's error envelope through gateway responses.
 */
import { Aws, CfnRule, Fn, RemovalPolicy, Stack, Token, Validations } from 'aws-cdk-lib';
import * as apigw from 'aws-cdk-lib/aws-apigateway';
import * as acm from 'aws-cdk-lib/aws-certificatemanager';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import * as logs from 'aws-cdk-lib/aws-logs';
import * as wafv2 from 'aws-cdk-lib/aws-wafv2';
import { Construct } from 'constructs';
import { DASHBOARD_API_PREFIX, dashboardRouteList } from '../../contract/dashboard-routes.js';
import { MAX_BODY_BYTES } from '../../contract/errors.js';
import { API_PREFIX, routeList } from '../../contract/routes.js';
import type { HttpHandlerName } from './function-access.js';
import { LOG_GROUP_KMS } from './nag.js';
import type { Settings } from './settings.js';

export const NOT_FOUND_HANDLER = 'route-not-found' satisfies HttpHandlerName;

export interface GatewayResponseSpec {
  readonly type: apigw.ResponseType;
  /** Absent: keep the status API Gateway chose. */
  readonly status?: string;
  readonly code: string;
  /** A JSON string literal, or `$context.error.messageString` (API Gateway quotes that one itself). */
  readonly message: string;
  readonly headers?: Readonly<Record<string, string>>;
}

const quoted = (s: string) => JSON.stringify(s);

/**
 * The error envelope for responses API Gateway makes itself. A gateway response
 * cannot set a fresh X-Request-Id header, so the id is API Gateway's request id, in
 * the body.
 */
export const GATEWAY_RESPONSES: readonly GatewayResponseSpec[] = [
  // Outside /api/v1 nothing is routed; API Gateway calls that "missing authentication token".
  { type: apigw.ResponseType.MISSING_AUTHENTICATION_TOKEN, status: '404', code: 'NOT_FOUND', message: quoted('No endpoint at this path.') },
  { type: apigw.ResponseType.RESOURCE_NOT_FOUND, status: '404', code: 'NOT_FOUND', message: quoted('No endpoint at this path.') },
  // The stage throttle is per second, a backstop behind the per-key limits the handlers enforce.
  {
    type: apigw.ResponseType.THROTTLED,
    status: '429',
    code: 'RATE_LIMIT_EXCEEDED',
    message: quoted('The service is receiving too many requests. Retry after 1 second.'),
    headers: { 'Retry-After': '1' },
  },
  // A block by a managed rule group of the web ACL; its size and rate rules answer with their own 413 and 429.
  {
    type: apigw.ResponseType.WAF_FILTERED,
    status: '403',
    code: 'FORBIDDEN',
    message: quoted('The request was refused by the firewall.'),
  },
  {
    type: apigw.ResponseType.REQUEST_TOO_LARGE,
    status: '413',
    code: 'PAYLOAD_TOO_LARGE',
    message: quoted('The request body is larger than 65536 bytes.'),
  },
  { type: apigw.ResponseType.ACCESS_DENIED, status: '403', code: 'FORBIDDEN', message: quoted('The request was refused.') },
  { type: apigw.ResponseType.DEFAULT_4XX, code: 'INVALID_REQUEST', message: '$context.error.messageString' },
  {
    type: apigw.ResponseType.DEFAULT_5XX,
    status: '500',
    code: 'INTERNAL_ERROR',
    message: quoted('An internal error occurred. Quote the request id if you contact support.'),
  },
];

export function gatewayResponseBody(spec: GatewayResponseSpec): string {
  return `{"error":{"code":${quoted(spec.code)},"message":${spec.message},"request_id":"$context.requestId"}}`;
}

/** One JSON object per request in the access log. */
const ACCESS_LOG_FORMAT = [
  `"requestId":"${apigw.AccessLogField.contextRequestId()}"`,
  `"extendedRequestId":"${apigw.AccessLogField.contextExtendedRequestId()}"`,
  `"requestTime":"${apigw.AccessLogField.contextRequestTime()}"`,
  `"ip":"${apigw.AccessLogField.contextIdentitySourceIp()}"`,
  `"userAgent":"${apigw.AccessLogField.contextIdentityUserAgent()}"`,
  `"httpMethod":"${apigw.AccessLogField.contextHttpMethod()}"`,
  `"resourcePath":"${apigw.AccessLogField.contextResourcePath()}"`,
  `"path":"${apigw.AccessLogField.contextPath()}"`,
  `"status":${apigw.AccessLogField.contextStatus()}`,
  `"responseLength":"${apigw.AccessLogField.contextResponseLength()}"`,
  `"responseLatency":"${apigw.AccessLogField.contextResponseLatency()}"`,
  `"integrationLatency":"${apigw.AccessLogField.contextIntegrationLatency()}"`,
  `"integrationStatus":"${apigw.AccessLogField.contextIntegrationStatus()}"`,
  `"errorType":"${apigw.AccessLogField.contextErrorResponseType()}"`,
  `"errorMessage":${apigw.AccessLogField.contextErrorMessageString()}`,
  `"wafStatus":"${apigw.AccessLogField.contextWafStatus()}"`,
  `"xrayTraceId":"${apigw.AccessLogField.contextXrayTraceId()}"`,
].join(',');

export interface ServiceApiProps {
  readonly settings: Settings;
  readonly handler: (name: HttpHandlerName) => lambda.IFunction;
}

export class ServiceApi extends Construct {
  readonly api: apigw.RestApi;
  readonly accessLogs: logs.LogGroup;
  /** The service base URL, ending in /api/v1. */
  readonly baseUrl: string;
  readonly domain?: apigw.DomainName;
  readonly webAcl?: wafv2.CfnWebACL;

  constructor(scope: Construct, id: string, props: ServiceApiProps) {
    super(scope, id);
    const { settings } = props;

    this.accessLogs = new logs.LogGroup(this, 'AccessLogs', {
      retention: settings.logRetention,
      removalPolicy: settings.removalPolicy,
    });
    this.api = new apigw.RestApi(this, 'Api', {
      restApiName: `deployment-api-${settings.stage}`,
      description: `Deployment Management API (${settings.stage})`,
      endpointConfiguration: { types: [apigw.EndpointType.REGIONAL] },
      // Execution logs (errors only) need the account-level CloudWatch role; it outlives the stack
      // because other APIs in the account may rely on it, but not a failed first create.
      cloudWatchRole: true,
      cloudWatchRoleRemovalPolicy: RemovalPolicy.RETAIN_ON_UPDATE_OR_DELETE,
      // Beside a custom domain the default execute-api URL would be a second way in, without its TLS policy.
      disableExecuteApiEndpoint: settings.customDomain !== undefined,
      deployOptions: {
        stageName: settings.stage,
        throttlingRateLimit: settings.throttle.rateLimit,
        throttlingBurstLimit: settings.throttle.burstLimit,
        tracingEnabled: true,
        loggingLevel: apigw.MethodLoggingLevel.ERROR,
        dataTraceEnabled: false,
        accessLogDestination: new apigw.LogGroupLogDestination(this.accessLogs),
        accessLogFormat: apigw.AccessLogFormat.custom(`{${ACCESS_LOG_FORMAT}}`),
      },
    });

    // API Gateway would create the execution log group itself, kept forever: made here first, with retention.
    const executionLogs = new logs.LogGroup(this, 'ExecutionLogs', {
      logGroupName: `API-Gateway-Execution-Logs_${this.api.restApiId}/${settings.stage}`,
      retention: settings.logRetention,
      removalPolicy: settings.removalPolicy,
    });
    this.api.deploymentStage.node.addDependency(executionLogs);
    for (const group of [this.accessLogs, executionLogs]) Validations.of(group).acknowledge(LOG_GROUP_KMS);

    // The stack's ApiUrl output (with the /api/v1 prefix) replaces RestApi's own endpoint output.
    this.api.node.tryRemoveChild('Endpoint');
    this.addRoutes(props.handler);
    for (const spec of GATEWAY_RESPONSES) {
      this.api.addGatewayResponse(`Gateway${spec.type.responseType}`, {
        type: spec.type,
        statusCode: spec.status,
        responseHeaders: {
          'Content-Type': "'application/json; charset=utf-8'",
          // Decision 39, on the answers API Gateway makes itself too.
          'X-Content-Type-Options': "'nosniff'",
          'Cache-Control': "'no-store'",
          ...Object.fromEntries(Object.entries(spec.headers ?? {}).map(([k, v]) => [k, `'${v}'`])),
        },
        templates: { 'application/json': gatewayResponseBody(spec) },
      });
    }

    if (settings.customDomain) {
      requireCertificateInRegion(this, settings.customDomain.certificateArn);
      this.domain = this.api.addDomainName('Domain', {
        domainName: settings.customDomain.domainName,
        certificate: acm.Certificate.fromCertificateArn(this, 'Certificate', settings.customDomain.certificateArn),
        endpointType: apigw.EndpointType.REGIONAL,
        // TLS 1.3 and 1.2 with forward secrecy only, and nothing older even from clients that ask.
        securityPolicy: apigw.SecurityPolicy.TLS13_1_2_PFS_PQ_2025_09,
        endpointAccessMode: apigw.EndpointAccessMode.STRICT,
      });
      Validations.of(this.domain).acknowledge({
        id: 'cdk-validator-cfnguard::api_gw_domain_tls_check',
        reason:
          'The rule knows only TLS_1_2; the domain uses a stricter policy, TLS 1.3 and 1.2 with forward secrecy only (SecurityPolicy_TLS13_1_2_PFS_PQ_2025_09).',
      });
      this.baseUrl = `https://${settings.customDomain.domainName}${API_PREFIX}`;
    } else {
      this.baseUrl = this.api.urlForPath(API_PREFIX);
    }

    if (settings.waf) this.webAcl = this.addWebAcl(settings);
    else {
      Validations.of(this.api).acknowledge({
        id: 'AwsSolutions-APIG3',
        reason: `WAF is off for this stage (${settings.stage}); turn it on with -c waf=true. Per-key limits are enforced by the handlers and the stage throttle is a backstop.`,
      });
    }

    Validations.of(this.api).acknowledge(
      {
        id: 'AwsSolutions-APIG4',
        reason:
          "Requests authenticate with X-API-Key, validated in the Lambda middleware against hashed keys in DynamoDB (the contract defines 401/403 codes an authorizer cannot produce); public routes need no key by contract. The dashboard API's handlers verify the Cognito user's ID token against the pool's JWKS (node:crypto, decision 200), for the same reason (TOKEN_EXPIRED, INSUFFICIENT_ROLE).",
      },
      {
        id: 'AwsSolutions-COG4',
        reason:
          "The public API uses the service's own API keys (X-API-Key); the dashboard API's Cognito tokens are verified in its handlers (against the pool's JWKS, decision 200), so that its errors keep the service's envelope and codes.",
      },
      {
        id: 'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AmazonAPIGatewayPushToCloudWatchLogs]',
        reason:
          'The account-level role API Gateway uses to write execution logs; AmazonAPIGatewayPushToCloudWatchLogs is the policy AWS defines for exactly that service role.',
      },
      {
        id: 'AwsSolutions-APIG2',
        reason:
          "Requests are validated in the Lambda middleware with the route table's zod schemas, so that invalid input gets the contract's 400 INVALID_REQUEST envelope with details.",
      },
      {
        // The permissions addRoutes makes, one per function (decision 151).
        id: 'cdk-validator-cfnguard::lambda_function_public_access_prohibited_check',
        reason:
          'A false positive: each permission lets only apigateway.amazonaws.com invoke, with a SourceArn naming this API (arn:…:execute-api:<region>:<account>:<api id>/*/*/*), but the rule reads a SourceArn only when it is a plain string, a Ref or a GetAtt, and CDK writes this one as Fn::Join.',
      },
    );
  }

  private addRoutes(handler: (name: HttpHandlerName) => lambda.IFunction): void {
    const integrations = new Map<string, apigw.LambdaIntegration>();
    const integration = (name: HttpHandlerName) => {
      let found = integrations.get(name);
      if (!found) {
        // One permission per function for the whole API rather than one per method: route-not-found
        // alone answers every ANY method, and a statement per method would fill its 20 KB resource
        // policy and the template (decision 151). The console's test invoke is allowed with it.
        found = new apigw.LambdaIntegration(handler(name), { proxy: true, scopePermissionToMethod: false });
        integrations.set(name, found);
      }
      return found;
    };

    const notFound = integration(NOT_FOUND_HANDLER);
    const tables = [
      { prefix: API_PREFIX, list: routeList },
      // The dashboard's API: the handlers verify the user's token themselves (decision 200),
      // so its answers (TOKEN_EXPIRED, INSUFFICIENT_ROLE, …) are the same here as under npm start.
      { prefix: DASHBOARD_API_PREFIX, list: dashboardRouteList },
    ];
    for (const { prefix: path, list } of tables) {
      const prefix = this.api.root.resourceForPath(path);
      for (const route of list) {
        this.api.root.resourceForPath(path + route.path).addMethod(route.method, integration(route.handler as HttpHandlerName));
      }
      // Every resource at or below the prefix (route paths and the ones between them) answers
      // other methods with 405/404 instead of API Gateway's own 403.
      const resources = [prefix, ...prefix.node.findAll().filter((c): c is apigw.Resource => c instanceof apigw.Resource)];
      for (const resource of new Set(resources)) resource.addMethod('ANY', notFound);
      prefix.addProxy({ defaultIntegration: notFound, anyMethod: true });
    }
  }

  private addWebAcl(settings: Settings): wafv2.CfnWebACL {
    const name = webAclName(settings.stage);
    const metric = (suffix: string) => ({
      cloudWatchMetricsEnabled: true,
      sampledRequestsEnabled: true,
      metricName: `${name}${suffix}`,
    });
    const acl = new wafv2.CfnWebACL(this, 'WebAcl', {
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
    new wafv2.CfnWebACLAssociation(this, 'WebAclAssociation', {
      resourceArn: this.api.deploymentStage.stageArn,
      webAclArn: acl.attrArn,
    });
    return acl;
  }
}

/**
 * A regional custom domain takes a certificate from its own region only. When the stack's
 * region is known at synth, another region fails synth; otherwise a template rule fails
 * the deploy before anything is created.
 */
export function requireCertificateInRegion(scope: Construct, certificateArn: string): void {
  const certRegion = certificateArn.split(':')[3] ?? '';
  const region = Stack.of(scope).region;
  const message = `certificateArn is an ACM certificate in ${certRegion}, but the API is regional: give a certificate for the custom domain in the stack's region`;
  if (!Token.isUnresolved(region)) {
    if (region !== certRegion) throw new Error(`context ${message} (${region}).`);
    return;
  }
  new CfnRule(scope, 'CertificateInStackRegion', {
    assertions: [{ assert: Fn.conditionEquals(Aws.REGION, certRegion), assertDescription: `The ${message}.` }],
  });
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
