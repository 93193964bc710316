/**
 * The REST API, built by looping over the route table: one method per route, an ANY
 * method on every resource under the prefix and a `{proxy+}` catch-all, both answered
 * by route-not-found (405 with Allow for a known path, 404 otherwise; API Gateway
 * prefers a resource's specific method over its ANY). What API Gateway answers by
 * itself (throttling, unknown paths outside the prefix, integration faults) keeps the
 * service's error envelope through gateway responses. The web ACL in front of it, on the
 * stages that have one, is waf.ts's.
 */
import { Aws, CfnRule, Fn, RemovalPolicy, Stack, Token, Validations } from 'aws-cdk-lib';
import * as apigw from 'aws-cdk-lib/aws-apigateway';
import * as acm from 'aws-cdk-lib/aws-certificatemanager';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import * as logs from 'aws-cdk-lib/aws-logs';
import type * as wafv2 from 'aws-cdk-lib/aws-wafv2';
import { Construct } from 'constructs';
import { DASHBOARD_API_PREFIX, dashboardRouteList } from '../../contract/dashboard-routes.js';
import { API_PREFIX, routeList } from '../../contract/routes.js';
import type { HttpHandlerName } from './function-access.js';
import { LOG_GROUP_KMS } from './nag.js';
import type { Settings } from './settings.js';
import { addWebAcl } from './waf.js';

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

    if (settings.waf) this.webAcl = addWebAcl(this, this.api.deploymentStage.stageArn, settings);
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
