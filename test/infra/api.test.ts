/**
 * The REST API (infra/aws/api.ts): built from both route tables, the gateway's own answers in the error
 * envelope, the stage and its logs.
 */
import { Match } from 'aws-cdk-lib/assertions';
import { DASHBOARD_API_PREFIX, dashboardRouteList } from '../../contract/dashboard-routes.js';
import { API_PREFIX, routeList } from '../../contract/routes.js';
import { GATEWAY_RESPONSES, gatewayResponseBody } from '../../infra/aws/api.js';
import type { FunctionName } from '../../infra/aws/function-access.js';
import { type CfnTemplate, flatten, fnId, resourcesOfType, stageOf } from './synth.js';

const s = stageOf({ stage: 'dev' });

describe('REST API', () => {
  /** Full path of every API Gateway resource, by logical id. */
  function resourcePaths(json: CfnTemplate): Map<string, string> {
    const byId = new Map(resourcesOfType(json, 'AWS::ApiGateway::Resource'));
    const out = new Map<string, string>();
    const pathOf = (id: string): string => {
      const known = out.get(id);
      if (known) return known;
      const r = byId.get(id)!;
      const parent = r.Properties?.ParentId as { Ref?: string };
      const p = `${parent.Ref ? pathOf(parent.Ref) : ''}/${r.Properties?.PathPart}`;
      out.set(id, p);
      return p;
    };
    for (const id of byId.keys()) pathOf(id);
    return out;
  }

  function methods() {
    const paths = resourcePaths(s.json);
    return resourcesOfType(s.json, 'AWS::ApiGateway::Method').map(([, m]) => {
      const resourceId = m.Properties?.ResourceId as { Ref?: string };
      const uri = flatten(m.Properties?.Integration.Uri);
      const target = /<GetAtt:([^.]+)\.Arn>/.exec(uri)?.[1];
      return {
        method: m.Properties?.HttpMethod as string,
        path: resourceId.Ref ? paths.get(resourceId.Ref)! : '/',
        target,
        integration: m.Properties?.Integration.Type as string,
        auth: m.Properties?.AuthorizationType as string,
      };
    });
  }

  const tables = [
    { prefix: API_PREFIX, list: routeList },
    { prefix: DASHBOARD_API_PREFIX, list: dashboardRouteList },
  ];

  it('has every route of both route tables as a method on its path, proxied to its handler', () => {
    const all = methods();
    for (const { prefix, list } of tables) {
      for (const route of list) {
        const found = all.filter((m) => m.path === prefix + route.path && m.method === route.method);
        const name = `${route.method} ${prefix}${route.path}`;
        expect({ route: name, n: found.length }).toEqual({ route: name, n: 1 });
        expect(found[0]).toMatchObject({ target: fnId(s, route.handler as FunctionName), integration: 'AWS_PROXY', auth: 'NONE' });
      }
    }
    const routed = all.filter((m) => m.method !== 'ANY');
    expect(routed).toHaveLength(routeList.length + dashboardRouteList.length);
  });

  it('answers other methods and unknown paths under either prefix with route-not-found (ANY on every resource, {proxy+})', () => {
    const all = methods();
    const notFound = fnId(s, 'route-not-found');
    for (const { prefix } of tables) {
      const under = [...new Set(resourcePaths(s.json).values())].filter((p) => p === prefix || p.startsWith(`${prefix}/`));
      expect(under).toContain(`${prefix}/{proxy+}`);
      for (const p of under) {
        expect({ p, any: all.filter((m) => m.path === p && m.method === 'ANY').map((m) => m.target) }).toEqual({ p, any: [notFound] });
      }
    }
  });

  it('keeps the error envelope for what API Gateway answers itself', () => {
    const byType = new Map(
      resourcesOfType(s.json, 'AWS::ApiGateway::GatewayResponse').map(([, r]) => [r.Properties?.ResponseType as string, r.Properties!]),
    );
    const expectations: Record<string, [string | undefined, string]> = {
      MISSING_AUTHENTICATION_TOKEN: ['404', 'NOT_FOUND'],
      THROTTLED: ['429', 'RATE_LIMIT_EXCEEDED'],
      DEFAULT_5XX: ['500', 'INTERNAL_ERROR'],
      DEFAULT_4XX: [undefined, 'INVALID_REQUEST'],
    };
    for (const [type, [status, code]] of Object.entries(expectations)) {
      const r = byType.get(type);
      expect(r).toBeDefined();
      expect(r?.StatusCode).toBe(status);
      expect(r?.ResponseParameters['gatewayresponse.header.Content-Type']).toBe("'application/json; charset=utf-8'");
      expect(r?.ResponseParameters['gatewayresponse.header.X-Content-Type-Options']).toBe("'nosniff'");
      expect(r?.ResponseParameters['gatewayresponse.header.Cache-Control']).toBe("'no-store'");
      // What API Gateway would send, with its variables filled in.
      const body = JSON.parse(
        String(r?.ResponseTemplates['application/json'])
          .replace('$context.requestId', 'abc')
          .replace('$context.error.messageString', '"Bad"'),
      );
      expect(body).toEqual({ error: { code, message: expect.any(String), request_id: 'abc' } });
    }
    expect(byType.get('THROTTLED')?.ResponseParameters['gatewayresponse.header.Retry-After']).toBe("'1'");
    expect(byType.size).toBe(GATEWAY_RESPONSES.length);
    for (const spec of GATEWAY_RESPONSES)
      expect(byType.get(spec.type.responseType)?.ResponseTemplates['application/json']).toBe(gatewayResponseBody(spec));
  });

  it('has a stage with throttling, X-Ray, error logging and JSON access logs', () => {
    s.template.hasResourceProperties('AWS::ApiGateway::Stage', {
      StageName: 'dev',
      TracingEnabled: true,
      MethodSettings: [
        Match.objectLike({
          HttpMethod: '*',
          ResourcePath: '/*',
          ThrottlingRateLimit: 50,
          ThrottlingBurstLimit: 100,
          LoggingLevel: 'ERROR',
          DataTraceEnabled: false,
        }),
      ],
      AccessLogSetting: Match.objectLike({ DestinationArn: Match.anyValue() }),
    });
    const [, stage] = resourcesOfType(s.json, 'AWS::ApiGateway::Stage')[0]!;
    const format = String(stage.Properties?.AccessLogSetting.Format);
    // The format is JSON once API Gateway fills in its variables.
    const line = format
      .replace(/\$context\.error\.messageString/g, '"x"')
      .replace(/\$context\.status/g, '200')
      .replace(/\$context\.[A-Za-z.]+/g, 'v');
    expect(JSON.parse(line)).toMatchObject({ requestId: 'v', status: 200, httpMethod: 'v', resourcePath: 'v' });
  });

  it('is regional, with no WAF in dev unless asked for, and no custom domain unless given (so the execute-api URL stays on)', () => {
    s.template.hasResourceProperties('AWS::ApiGateway::RestApi', {
      Name: 'deployment-api-dev',
      EndpointConfiguration: { Types: ['REGIONAL'] },
      DisableExecuteApiEndpoint: false,
    });
    s.template.resourceCountIs('AWS::WAFv2::WebACL', 0);
    s.template.resourceCountIs('AWS::ApiGateway::DomainName', 0);
  });
});
