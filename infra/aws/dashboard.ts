/**
 * The dashboard on AWS. DashboardUsers: the Cognito user pool its users sign in to (one
 * organization and one role each, as custom attributes only administrators write) and
 * the app's client (USER_PASSWORD_AUTH and refresh, one-hour tokens). DashboardSite: the
 * built app in a private S3 bucket behind CloudFront (origin access control, HTTPS only,
 * the app's security headers), which also sends /dashboard/api/* to the REST API so the
 * app and its API share one origin.
 */
import { Aws, CfnOutput, type CfnResource, Duration, RemovalPolicy, Stack, Validations } from 'aws-cdk-lib';
import type * as apigw from 'aws-cdk-lib/aws-apigateway';
import * as cloudfront from 'aws-cdk-lib/aws-cloudfront';
import * as origins from 'aws-cdk-lib/aws-cloudfront-origins';
import * as cognito from 'aws-cdk-lib/aws-cognito';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as logs from 'aws-cdk-lib/aws-logs';
import * as s3 from 'aws-cdk-lib/aws-s3';
import * as s3deploy from 'aws-cdk-lib/aws-s3-deployment';
import { Construct } from 'constructs';
import { DASHBOARD_API_PREFIX } from '../../contract/dashboard-routes.js';
import { ORG_ATTRIBUTE, ROLE_ATTRIBUTE } from '../../contract/dashboard-users.js';
import { buildDashboard, DASHBOARD_PATH, securityHeaders } from '../../dashboard/build.js';
import type { DashboardConfig } from '../../dashboard/src/config.js';
import { ID_TOKEN_SECONDS, PASSWORD_POLICY, REFRESH_TOKEN_DAYS } from '../user-pool-settings.js';
import { dropRoleDependsOn, iam5ResourceFinding, LOG_GROUP_KMS, OUTSIDE_VPC } from './nag.js';
import type { Settings } from './settings.js';

const COPIER_GRANTS =
  "CDK's BucketDeployment grants: read the staged app, write and delete the app's objects in this bucket (object wildcards are inherent to a sync), invalidate the distribution (CloudFront takes no resource ARN), and trace with X-Ray.";

const attributeName = (claim: string) => claim.replace(/^custom:/, '');

export class DashboardUsers extends Construct {
  readonly pool: cognito.UserPool;
  readonly client: cognito.UserPoolClient;

  constructor(scope: Construct, id: string, settings: Settings) {
    super(scope, id);
    this.pool = new cognito.UserPool(this, 'Pool', {
      userPoolName: `deployment-dashboard-${settings.stage}`,
      // Operators create users (npm run users -- --aws); nobody signs themselves up into an organization.
      selfSignUpEnabled: false,
      signInAliases: { email: true },
      standardAttributes: { email: { required: true, mutable: true } },
      customAttributes: {
        [attributeName(ORG_ATTRIBUTE)]: new cognito.StringAttribute({ minLen: 1, maxLen: 64, mutable: false }),
        [attributeName(ROLE_ATTRIBUTE)]: new cognito.StringAttribute({ minLen: 5, maxLen: 6, mutable: true }),
      },
      passwordPolicy: { ...PASSWORD_POLICY, tempPasswordValidity: Duration.days(3) },
      accountRecovery: cognito.AccountRecovery.EMAIL_ONLY,
      removalPolicy: settings.removalPolicy,
      deletionProtection: settings.deletionProtection,
    });
    this.client = this.pool.addClient('Web', {
      userPoolClientName: 'dashboard',
      generateSecret: false,
      authFlows: { userPassword: true },
      // No hosted UI and no OAuth flows (CDK would enable implicit and code grants by default).
      disableOAuth: true,
      preventUserExistenceErrors: true,
      idTokenValidity: Duration.seconds(ID_TOKEN_SECONDS),
      accessTokenValidity: Duration.seconds(ID_TOKEN_SECONDS),
      refreshTokenValidity: Duration.days(REFRESH_TOKEN_DAYS),
      enableTokenRevocation: true,
      // Users may read their organization and role but write neither: they place the user.
      readAttributes: new cognito.ClientAttributes()
        .withStandardAttributes({ email: true, emailVerified: true })
        .withCustomAttributes(attributeName(ORG_ATTRIBUTE), attributeName(ROLE_ATTRIBUTE)),
      writeAttributes: new cognito.ClientAttributes().withStandardAttributes({ email: false }),
    });
    Validations.of(this.pool).acknowledge(
      {
        id: 'AwsSolutions-COG2',
        reason:
          'MFA is not yet offered: the dashboard signs in with USER_PASSWORD_AUTH and has no challenge step; users are created by operators, and passwords follow the policy above.',
      },
      {
        id: 'AwsSolutions-COG3',
        reason: 'Threat protection (advanced security) needs the Cognito Plus feature plan; the pool uses the Essentials plan.',
      },
      {
        id: 'AwsSolutions-COG8',
        reason: 'The Essentials plan: a handful of operator-created users per organization, no threat protection (see COG3).',
      },
    );
  }

  /** The pool's issuer URL: the `iss` of its tokens, with the JWKS below it. */
  get issuer(): string {
    return this.pool.userPoolProviderUrl;
  }
}

/**
 * `/dashboard/` is the app's page; `/` and `/dashboard` lead there. Everything else is
 * an object key as it is (hashed assets, config.json) or the API.
 */
const ROUTE_PAGE = `function handler(event) {
  var uri = event.request.uri;
  if (uri === '/' || uri === '${DASHBOARD_PATH}') {
    return { statusCode: 302, statusDescription: 'Found', headers: { location: { value: '${DASHBOARD_PATH}/' } } };
  }
  if (uri === '${DASHBOARD_PATH}/') event.request.uri = '${DASHBOARD_PATH}/index.html';
  return event.request;
}`;

export interface DashboardSiteProps {
  readonly settings: Settings;
  readonly users: DashboardUsers;
  readonly api: apigw.RestApi;
  /** The API's custom domain, mapped at its root, when there is one. */
  readonly apiDomainName?: string;
}

export class DashboardSite extends Construct {
  readonly bucket: s3.Bucket;
  readonly distribution: cloudfront.Distribution;
  readonly url: string;

  constructor(scope: Construct, id: string, props: DashboardSiteProps) {
    super(scope, id);
    const { settings, users, api } = props;
    const destroy = settings.removalPolicy === RemovalPolicy.DESTROY;
    this.bucket = new s3.Bucket(this, 'Bucket', {
      blockPublicAccess: s3.BlockPublicAccess.BLOCK_ALL,
      encryption: s3.BucketEncryption.S3_MANAGED,
      enforceSSL: true,
      objectOwnership: s3.ObjectOwnership.BUCKET_OWNER_ENFORCED,
      // Each deployment overwrites and prunes the app's objects: the versions it replaces stay
      // restorable for 30 days, then go (decision 175).
      versioned: true,
      lifecycleRules: [
        {
          noncurrentVersionExpiration: Duration.days(30),
          expiredObjectDeleteMarker: true,
          abortIncompleteMultipartUploadAfter: Duration.days(1),
        },
      ],
      removalPolicy: settings.removalPolicy,
      autoDeleteObjects: destroy,
    });

    const region = Stack.of(this).region;
    const cognitoEndpoint = `https://cognito-idp.${region}.amazonaws.com`;
    const headers = securityHeaders([cognitoEndpoint]);
    // CloudFront's names are global to the account: the region keeps a stack of the same name
    // in another region from colliding.
    const globalName = (what: string) => `${Stack.of(this).stackName}-${region}-${what}`;
    const headersPolicy = new cloudfront.ResponseHeadersPolicy(this, 'SecurityHeaders', {
      responseHeadersPolicyName: globalName('security-headers'),
      comment: `Dashboard security headers (${settings.stage})`,
      securityHeadersBehavior: {
        contentSecurityPolicy: { contentSecurityPolicy: headers['Content-Security-Policy']!, override: true },
        contentTypeOptions: { override: true },
        frameOptions: { frameOption: cloudfront.HeadersFrameOption.DENY, override: true },
        referrerPolicy: { referrerPolicy: cloudfront.HeadersReferrerPolicy.NO_REFERRER, override: true },
        strictTransportSecurity: { accessControlMaxAge: Duration.days(365), includeSubdomains: true, override: true },
      },
    });

    this.distribution = new cloudfront.Distribution(this, 'Distribution', {
      comment: `Deployment dashboard (${settings.stage})`,
      httpVersion: cloudfront.HttpVersion.HTTP2_AND_3,
      priceClass: cloudfront.PriceClass.PRICE_CLASS_100,
      defaultBehavior: {
        origin: origins.S3BucketOrigin.withOriginAccessControl(this.bucket, {
          originAccessControl: new cloudfront.S3OriginAccessControl(this, 'OriginAccess', {
            originAccessControlName: globalName('dashboard'),
          }),
        }),
        viewerProtocolPolicy: cloudfront.ViewerProtocolPolicy.HTTPS_ONLY,
        responseHeadersPolicy: headersPolicy,
        cachePolicy: cloudfront.CachePolicy.CACHING_OPTIMIZED,
        functionAssociations: [
          {
            eventType: cloudfront.FunctionEventType.VIEWER_REQUEST,
            function: new cloudfront.Function(this, 'RoutePage', {
              code: cloudfront.FunctionCode.fromInline(ROUTE_PAGE),
              runtime: cloudfront.FunctionRuntime.JS_2_0,
            }),
          },
        ],
      },
      additionalBehaviors: {
        // The dashboard API on the app's own origin: no CORS, and never cached.
        [`${DASHBOARD_API_PREFIX}/*`]: {
          // With a custom domain the execute-api endpoint is off (api.ts): the domain is the way in.
          origin: props.apiDomainName
            ? new origins.HttpOrigin(props.apiDomainName, { protocolPolicy: cloudfront.OriginProtocolPolicy.HTTPS_ONLY })
            : new origins.RestApiOrigin(api),
          viewerProtocolPolicy: cloudfront.ViewerProtocolPolicy.HTTPS_ONLY,
          allowedMethods: cloudfront.AllowedMethods.ALLOW_ALL,
          cachePolicy: cloudfront.CachePolicy.CACHING_DISABLED,
          originRequestPolicy: cloudfront.OriginRequestPolicy.ALL_VIEWER_EXCEPT_HOST_HEADER,
        },
      },
    });
    this.url = `https://${this.distribution.distributionDomainName}${DASHBOARD_PATH}/`;

    const config: DashboardConfig = {
      userPoolEndpoint: `${cognitoEndpoint}/`,
      clientId: users.client.userPoolClientId,
      apiBase: DASHBOARD_API_PREFIX,
    };
    const key = (name: string) => `${DASHBOARD_PATH.slice(1)}/${name}`;
    const deployLogs = new logs.LogGroup(this, 'DeployLogs', { retention: settings.logRetention, removalPolicy: settings.removalPolicy });
    Validations.of(deployLogs).acknowledge(LOG_GROUP_KMS);
    const deployment = new s3deploy.BucketDeployment(this, 'Deploy', {
      destinationBucket: this.bucket,
      sources: [
        ...[...buildDashboard()].map(([name, file]) => s3deploy.Source.data(key(name), file.body.toString('utf8'))),
        s3deploy.Source.jsonData(key('config.json'), config),
      ],
      // Hashed names change with their content; the page and the config are revalidated on every load.
      cacheControl: [s3deploy.CacheControl.noCache()],
      distribution: this.distribution,
      distributionPaths: [`${DASHBOARD_PATH}/*`],
      memoryLimit: 256,
      // Its function would otherwise log to a group Lambda makes, kept forever.
      logGroup: deployLogs,
    });

    // The deployment's copying function is CDK's own singleton, shared by the stack.
    const copierFunctions = Stack.of(this).node.children.filter(
      (c): c is lambda.Function => c instanceof lambda.Function && c.node.id.startsWith('Custom::CDKBucketDeployment'),
    );
    for (const fn of copierFunctions) if (fn.role) dropRoleDependsOn(fn.node.defaultChild as CfnResource, fn.role);
    for (const c of [...copierFunctions, deployment.handlerRole])
      Validations.of(c).acknowledge(
        {
          id: 'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole]',
          reason: "CDK's BucketDeployment function: runs only while the stack deploys, to copy the app into the bucket.",
        },
        ...[
          'Action::s3:GetObject*',
          'Action::s3:GetBucket*',
          'Action::s3:List*',
          'Action::s3:DeleteObject*',
          'Action::s3:Abort*',
          'Resource::*',
        ].map((finding) => ({ id: `AwsSolutions-IAM5[${finding}]`, reason: COPIER_GRANTS })),
        { id: iam5ResourceFinding(this, `${this.bucket.bucketArn}/*`), reason: COPIER_GRANTS },
        // The default synthesizer's asset bucket, where the app is staged.
        {
          id: iam5ResourceFinding(this, `arn:${Aws.PARTITION}:s3:::cdk-hnb659fds-assets-${Aws.ACCOUNT_ID}-${region}/*`),
          reason: COPIER_GRANTS,
        },
        { id: 'AwsSolutions-L1', reason: "CDK's BucketDeployment function; its runtime is chosen by aws-cdk-lib." },
        OUTSIDE_VPC,
      );
    // What the bucket holds is the public app, written only by the deployment and read only by
    // this distribution (origin access control, TLS only): decision 175.
    Validations.of(this.bucket).acknowledge(
      {
        id: 'AwsSolutions-S1',
        reason: 'The bucket holds only the public web app, written by the deployment; requests reach it only through CloudFront.',
      },
      {
        id: 'cdk-validator-cfnguard::s3_bucket_logging_enabled_check',
        reason:
          "Its one reader is this distribution, through origin access control, and its one writer the stack's deployment: a server access log would list CloudFront's cache fills, not who opened the dashboard, in a second bucket with findings of its own. The dashboard's API writes its own access log.",
      },
      {
        id: 'cdk-validator-cfnguard::s3_bucket_default_encryption_kms_check',
        reason:
          "Encrypted at rest with S3's keys. The objects are the public app; a customer managed key would protect nothing more, and CloudFront would need decrypt rights in its key policy.",
      },
      {
        id: 'cdk-validator-cfnguard::s3_event_notifications_enabled_check',
        reason: 'Nothing acts on its objects changing: they change only when the stack deploys, which CloudFormation records.',
      },
      {
        id: 'cdk-validator-cfnguard::s3_bucket_object_lock_enabled_check',
        reason:
          'Every deployment overwrites and prunes the objects, which object lock would refuse; versioning keeps the replaced ones for 30 days.',
      },
    );
    Validations.of(this.distribution).acknowledge(
      { id: 'AwsSolutions-CFR1', reason: 'The dashboard is offered in every country the service is.' },
      {
        id: 'AwsSolutions-CFR2',
        reason:
          'A CloudFront web ACL must live in us-east-1; the API behind /dashboard/api keeps its own rate limits and regional WAF (-c waf=true).',
      },
      { id: 'AwsSolutions-CFR3', reason: 'Static assets only; the API behind /dashboard/api writes its own access log.' },
      {
        id: 'cdk-validator-cfnguard::cloudfront_default_root_object_configured_check',
        reason: 'The app lives under /dashboard/: the viewer-request function sends / there and serves /dashboard/ as its index.html.',
      },
      {
        id: 'cdk-validator-cfnguard::cloudfront_origin_failover_enabled_check',
        reason: "One bucket in the stack's region holds the app; a second origin would be a second copy to keep in step for a static page.",
      },
      {
        id: 'cdk-validator-cfnguard::cloudfront_access_logs_enabled_check',
        reason: 'Static assets only (as for AwsSolutions-CFR3); the API behind /dashboard/api writes its own access log.',
      },
      ...[
        'cdk-validator-cfnguard::cloudfront_custom_ssl_certificate_check',
        'cdk-validator-cfnguard::cloudfront_sni_enabled_check',
        'cdk-validator-cfnguard::cloudfront_security_policy_check',
      ].map((id) => ({
        id,
        reason:
          'No custom dashboard domain yet: the default *.cloudfront.net certificate fixes the security policy (as for AwsSolutions-CFR4); docs/deploy.md lists it as the next step.',
      })),
      {
        id: 'AwsSolutions-CFR4',
        reason:
          'The default *.cloudfront.net certificate fixes the security policy (TLSv1); a custom domain with its certificate and TLSv1.2_2021 is the next step (docs/deploy.md).',
      },
    );

    new CfnOutput(Stack.of(this), 'DashboardUrl', { value: this.url, description: 'The web dashboard' });
    new CfnOutput(Stack.of(this), 'UserPoolId', {
      value: users.pool.userPoolId,
      description: 'Dashboard users (USER_POOL_ID for npm run users -- --aws)',
    });
  }
}
