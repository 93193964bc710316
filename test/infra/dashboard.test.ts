/**
 * The web dashboard (infra/aws/dashboard.ts): its user pool, the dashboard API's environment, the
 * bucket, CloudFront and the deployment of the app.
 */
import { DASHBOARD_API_PREFIX, dashboardHandlerNames } from '../../contract/dashboard-routes.js';
import { buildDashboard } from '../../dashboard/build.js';
import { ID_TOKEN_SECONDS, PASSWORD_POLICY } from '../../infra/user-pool-settings.js';
import { flatten, fnId, logicalId, resourcesOfType, stageOf } from './synth.js';

const s = stageOf({ stage: 'dev' });

describe('dashboard', () => {
  const one = (type: string) => {
    const found = resourcesOfType(s.json, type);
    expect(found).toHaveLength(1);
    return found[0]![1].Properties!;
  };

  it('has a user pool only operators add to: email sign-in, the password policy of npm start, org fixed, role and org unwritable by users', () => {
    const pool = one('AWS::Cognito::UserPool');
    expect(pool).toMatchObject({
      AdminCreateUserConfig: { AllowAdminCreateUserOnly: true },
      UsernameAttributes: ['email'],
      Policies: {
        PasswordPolicy: {
          MinimumLength: PASSWORD_POLICY.minLength,
          RequireLowercase: true,
          RequireUppercase: true,
          RequireNumbers: true,
          RequireSymbols: true,
        },
      },
    });
    expect(pool.Schema).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ Name: 'org_id', Mutable: false }),
        expect.objectContaining({ Name: 'role', Mutable: true }),
      ]),
    );
    const client = one('AWS::Cognito::UserPoolClient');
    expect(client).toMatchObject({
      ExplicitAuthFlows: ['ALLOW_USER_PASSWORD_AUTH', 'ALLOW_REFRESH_TOKEN_AUTH'],
      GenerateSecret: false,
      IdTokenValidity: ID_TOKEN_SECONDS / 60,
      TokenValidityUnits: { IdToken: 'minutes' },
      PreventUserExistenceErrors: 'ENABLED',
      WriteAttributes: [],
    });
    expect(client.AllowedOAuthFlows).toBeUndefined();
  });

  it("gives the dashboard API's functions, and only those, the pool's issuer and the app client", () => {
    for (const f of s.stack.functions.all) {
      const env = s.json.Resources[fnId(s, f.name)]!.Properties?.Environment.Variables;
      if (dashboardHandlerNames.includes(f.name)) {
        expect(flatten(env.DASHBOARD_TOKEN_ISSUER)).toContain('ProviderURL');
        expect(env.DASHBOARD_CLIENT_ID).toEqual({ Ref: logicalId(s.stack.dashboardUsers.client) });
        expect({ name: f.name, keyed: f.access.items.some((g) => g.reach.includes('usage')) }).toEqual({
          name: f.name,
          keyed: false,
        });
      } else expect({ name: f.name, issuer: env.DASHBOARD_TOKEN_ISSUER }).toEqual({ name: f.name, issuer: undefined });
    }
  });

  it('serves the app from a private, TLS-only bucket through CloudFront with origin access control, HTTPS only and the security headers', () => {
    const bucket = one('AWS::S3::Bucket');
    expect(bucket.PublicAccessBlockConfiguration).toEqual({
      BlockPublicAcls: true,
      BlockPublicPolicy: true,
      IgnorePublicAcls: true,
      RestrictPublicBuckets: true,
    });
    const policy = flatten(one('AWS::S3::BucketPolicy'));
    expect(policy).toContain('aws:SecureTransport');
    expect(policy).toContain(':distribution/');
    expect(one('AWS::CloudFront::OriginAccessControl').OriginAccessControlConfig).toMatchObject({ SigningBehavior: 'always' });
    const dist = one('AWS::CloudFront::Distribution').DistributionConfig;
    expect(dist.DefaultCacheBehavior.ViewerProtocolPolicy).toBe('https-only');
    expect(dist.CacheBehaviors).toEqual([
      expect.objectContaining({
        PathPattern: `${DASHBOARD_API_PREFIX}/*`,
        ViewerProtocolPolicy: 'https-only',
        AllowedMethods: expect.arrayContaining(['POST', 'DELETE']),
      }),
    ]);
    const headers = one('AWS::CloudFront::ResponseHeadersPolicy').ResponseHeadersPolicyConfig.SecurityHeadersConfig;
    const csp = flatten(headers.ContentSecurityPolicy.ContentSecurityPolicy);
    expect(csp).toContain("script-src 'self'");
    expect(csp).toMatch(/connect-src 'self' https:\/\/cognito-idp\./);
    expect(headers.FrameOptions.FrameOption).toBe('DENY');
    expect(headers.StrictTransportSecurity).toMatchObject({ IncludeSubdomains: true });
    // CloudFront's names are global to the account: each carries the stack's name and region.
    for (const name of [
      one('AWS::CloudFront::ResponseHeadersPolicy').ResponseHeadersPolicyConfig.Name,
      one('AWS::CloudFront::OriginAccessControl').OriginAccessControlConfig.Name,
    ])
      expect(flatten(name)).toMatch(/^DeploymentApi-dev-<Ref:AWS::Region>-/);
    // Without a custom domain the dashboard's API is reached at the execute-api endpoint, below the stage.
    const api = (dist.Origins as any[]).find((o) => o.Id === dist.CacheBehaviors[0].TargetOriginId);
    expect(flatten(api.DomainName)).toContain('execute-api');
  });

  it("keeps the app's deployment function's logs as long as the stage keeps logs", () => {
    const [, deployer] = resourcesOfType(s.json, 'AWS::Lambda::Function').find(([id]) => id.startsWith('CustomCDKBucketDeployment'))!;
    expect(flatten(deployer.Properties?.LoggingConfig?.LogGroup)).toMatch(/^<Ref:DashboardDeployLogs/);
    for (const [, lg] of resourcesOfType(s.json, 'AWS::Logs::LogGroup')) expect(lg.Properties?.RetentionInDays).toBe(7);
  });

  it('deploys the built app and its config with the stack, and outputs its URL and the user pool id', () => {
    const deploy = one('Custom::CDKBucketDeployment');
    // Every file of the build (the page, the favicon, the stylesheet, the scripts and their
    // split chunks, e.g. the charts' module) and config.json, whose client id is filled in at deploy time.
    const built = [...buildDashboard().keys()];
    expect(built).toEqual(expect.arrayContaining(['index.html', 'favicon.svg']));
    expect(built.some((name) => name.startsWith('uplot-chart'))).toBe(true);
    expect(deploy.SourceObjectKeys).toHaveLength(built.length + 1);
    expect(flatten(deploy.SourceMarkers)).toContain(logicalId(s.stack.dashboardUsers.client));
    expect(Object.keys(s.json.Outputs ?? {})).toEqual(expect.arrayContaining(['DashboardUrl', 'UserPoolId']));
  });
});
