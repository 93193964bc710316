/**
 * The dev stage, synthesized once with real bundling and cdk-nag: the table, the
 * functions and their least-privilege policies, the API built from the route table,
 * the gateway responses, the workflow, the schedule and the alarms.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Match } from 'aws-cdk-lib/assertions';
import { ADMISSION_ATTRIBUTES } from '../../functions/adapters/dynamo/key-admission.js';
import { createTableInput, TTL_ATTRIBUTE } from '../../functions/adapters/dynamo/table.js';
import { DASHBOARD_API_PREFIX, dashboardHandlerNames, dashboardRouteList } from '../../functions/dashboard-routes.js';
import { API_PREFIX, handlerNames, routeList } from '../../functions/routes.js';
import { GATEWAY_RESPONSES, gatewayResponseBody } from '../../infra/aws/api.js';
import {
  EVENTS_FUNCTIONS,
  type FunctionName,
  itemActionsOf,
  kmsActionName,
  leadingKeyPattern,
  physicalIndexes,
  QUERY_EXCLUDED,
  usesTable,
} from '../../infra/aws/function-access.js';
import { itemConditions } from '../../infra/aws/functions.js';
import { OPERATION_ASL } from '../../infra/aws/state-machine.js';
import { ID_TOKEN_SECONDS, PASSWORD_POLICY } from '../../infra/user-pool-settings.js';
import {
  actionsOf,
  type CfnTemplate,
  cleanup,
  flatten,
  logicalId,
  resourcesOf,
  resourcesOfType,
  type Statement,
  type Synthesized,
  statementsOfRole,
  synth,
} from './synth.js';

let s: Synthesized;
beforeAll(() => {
  s = synth({ stage: 'dev' });
}, 120_000);
afterAll(() => cleanup(s));

const fnId = (name: FunctionName) => logicalId(s.stack.functions.get(name).fn);

describe('cdk-nag (AwsSolutions)', () => {
  it('synthesizes with no unacknowledged finding (errors would have failed synth; warnings too are acknowledged)', () => {
    expect(s.report.pluginReports.flatMap((p) => p.violations)).toEqual([]);
  });
});

describe('table', () => {
  it('is the definition the local host creates (keys, indexes projecting ALL, on-demand billing), with TTL, PITR and encryption', () => {
    const tables = resourcesOfType(s.json, 'AWS::DynamoDB::Table');
    expect(tables).toHaveLength(1);
    // CloudFormation names the table itself.
    const { TableName: _, StreamSpecification: stream, ...definition } = createTableInput('unnamed');
    expect(tables[0]![1].Properties).toMatchObject({
      ...definition,
      // CloudFormation enables the stream by naming its view type.
      StreamSpecification: { StreamViewType: stream!.StreamViewType },
      TimeToLiveSpecification: { AttributeName: TTL_ATTRIBUTE, Enabled: true },
      PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
      // Enabled without a key of our own: the AWS managed key (aws/dynamodb).
      SSESpecification: { SSEEnabled: true },
    });
  });

  it('is destroyed with a dev stack and has no deletion protection', () => {
    s.template.hasResource('AWS::DynamoDB::Table', { DeletionPolicy: 'Delete', UpdateReplacePolicy: 'Delete' });
    const [, table] = resourcesOfType(s.json, 'AWS::DynamoDB::Table')[0]!;
    expect(table.Properties?.DeletionProtectionEnabled).toBe(false);
  });
});

describe('functions', () => {
  const workflowFiles = fs
    .readdirSync(path.join(import.meta.dirname, '../../functions/workflow'))
    .filter((f) => f.endsWith('.ts'))
    .map((f) => f.slice(0, -3));
  const expected = [...handlerNames, ...dashboardHandlerNames, 'route-not-found', ...workflowFiles, ...EVENTS_FUNCTIONS].sort();

  it('are one per handler module, workflow step and events module, on Node.js 24, arm64, traced', () => {
    expect(s.stack.functions.all.map((f) => f.name).sort()).toEqual(expected);
    // Besides the service's own, only CDK's deploy-time functions for the dashboard's bucket (copy the app in, empty a dev bucket).
    const fns = resourcesOfType(s.json, 'AWS::Lambda::Function').filter(
      ([id]) => !id.startsWith('CustomCDKBucketDeployment') && !id.startsWith('CustomS3AutoDeleteObjects'),
    );
    expect(fns).toHaveLength(expected.length);
    for (const [, fn] of fns) {
      expect(fn.Properties).toMatchObject({
        Runtime: 'nodejs24.x',
        Architectures: ['arm64'],
        Handler: 'index.handler',
        TracingConfig: { Mode: 'Active' },
      });
    }
  });

  const codeDir = (name: FunctionName) => {
    const fn = s.json.Resources[fnId(name)]!;
    const key = String(fn.Properties?.Code.S3Key);
    return path.join(s.outdir, `asset.${key.replace(/\.zip$/, '')}`);
  };

  it('are bundled by esbuild as ES modules, with source maps, and get-docs carries the Swagger UI files', () => {
    for (const f of s.stack.functions.all) {
      const dir = codeDir(f.name);
      expect(fs.existsSync(path.join(dir, 'index.mjs'))).toBe(true);
      expect(fs.existsSync(path.join(dir, 'index.mjs.map'))).toBe(true);
      expect(s.json.Resources[fnId(f.name)]!.Properties?.Handler).toBe('index.handler');
    }
    const docs = codeDir('get-docs');
    expect(fs.readdirSync(path.join(docs, 'swagger-ui')).sort()).toEqual(['swagger-ui-bundle.js', 'swagger-ui.css']);
    expect(s.json.Resources[fnId('get-docs')]!.Properties?.Environment.Variables.SWAGGER_UI_DIST).toBe('/var/task/swagger-ui');
  });

  it('load and answer as Lambda runs them: a bundle imported by Node 24 serves its route through the middy stack', () => {
    // The bundle alone, outside jest and this repository's node_modules: what Lambda would import.
    const script = `
      const { handler } = await import(${JSON.stringify(path.join(codeDir('get-openapi'), 'index.mjs'))});
      const event = { httpMethod: 'GET', path: '/api/v1/openapi.json', headers: { 'X-Request-Id': 'bundle-check' }, body: null, isBase64Encoded: false };
      const context = { functionName: 'get-openapi', awsRequestId: 'r', getRemainingTimeInMillis: () => 5000 };
      const res = await handler(event, context);
      process.stdout.write(JSON.stringify({ status: res.statusCode, id: res.headers['X-Request-Id'], openapi: JSON.parse(res.body).openapi }));
    `;
    const out = execFileSync(process.execPath, ['--input-type=module', '-e', script], {
      cwd: os.tmpdir(),
      encoding: 'utf8',
      env: { PATH: process.env.PATH, LOG_LEVEL: 'silent' },
    });
    expect(JSON.parse(out)).toEqual({ status: 200, id: 'bundle-check', openapi: '3.1.0' });
  });

  it('get the environment from function-env: TABLE_NAME only with table access, STATE_MACHINE_ARN only with Step Functions access', () => {
    for (const f of s.stack.functions.all) {
      const env = s.json.Resources[fnId(f.name)]!.Properties?.Environment.Variables as Record<string, unknown>;
      expect(env).toMatchObject({
        APP_DOMAIN: 'apps.example.com',
        PHASE_DELAY_MS: '2000',
        RATE_LIMIT_PER_HOUR: '1000',
        RATE_LIMIT_PER_MINUTE: '100',
        CREATE_LIMIT_PER_HOUR: '10',
        PHASE_TIMEOUT_SECONDS: '21600',
      });
      // Source maps are read when an error is logged, not at every cold start (functions/lib/source-stack.ts).
      expect(env.NODE_OPTIONS).toBeUndefined();
      expect(flatten(env.TABLE_NAME)).toBe(usesTable(f.access) ? `<Ref:${logicalId(s.stack.data.table)}>` : 'undefined');
      expect(flatten(env.STATE_MACHINE_ARN)).toBe(
        f.access.states.length ? `<Ref:${logicalId(s.stack.workflow.stateMachine)}>` : 'undefined',
      );
      expect(env.WEBHOOK_ALLOW_INSECURE).toBe('false');
      expect(flatten(env.DELIVERY_QUEUE_URL)).toBe(f.access.queue.length ? `<Ref:${logicalId(s.stack.webhooks.queue)}>` : 'undefined');
      expect(flatten(env.WEBHOOK_KMS_KEY_ID)).toBe(f.access.kms.length ? `<GetAtt:${logicalId(s.stack.webhooks.key)}.Arn>` : 'undefined');
    }
  });
});

describe('IAM, per function', () => {
  const tableArn = () => `<GetAtt:${logicalId(s.stack.data.table)}.Arn>`;
  const queueArn = () => `<GetAtt:${logicalId(s.stack.webhooks.queue)}.Arn>`;
  const dlqArn = () => `<GetAtt:${logicalId(s.stack.webhooks.deadLetterQueue)}.Arn>`;
  const keyArn = () => `<GetAtt:${logicalId(s.stack.webhooks.key)}.Arn>`;

  /**
   * What the event sources grant (CDK, not FUNCTION_ACCESS): the dispatcher reads the
   * table's stream and sends failed batches to the dead-letter queue, the deliverer
   * receives and deletes messages of the delivery queue. Nothing else is granted this way.
   */
  const eventSourceGrants = (name: FunctionName): { actions: string[]; resources: string[] }[] => {
    const streamArn = `<GetAtt:${logicalId(s.stack.data.table)}.StreamArn>`;
    if (name === 'dispatch-events')
      return [
        { actions: ['dynamodb:ListStreams'], resources: ['*'] },
        { actions: ['dynamodb:DescribeStream', 'dynamodb:GetRecords', 'dynamodb:GetShardIterator'], resources: [streamArn] },
        { actions: ['sqs:GetQueueAttributes', 'sqs:GetQueueUrl', 'sqs:SendMessage'], resources: [dlqArn()] },
      ];
    if (name === 'deliver-webhooks')
      return [
        {
          actions: ['sqs:ChangeMessageVisibility', 'sqs:DeleteMessage', 'sqs:GetQueueAttributes', 'sqs:GetQueueUrl', 'sqs:ReceiveMessage'],
          resources: [queueArn()],
        },
      ];
    return [];
  };
  const shapeOf = (st: Statement) => ({ actions: actionsOf(st).sort(), resources: resourcesOf(st).map(flatten).sort() });
  const isEventSourceGrant = (name: FunctionName, st: Statement) =>
    eventSourceGrants(name).some((g) => JSON.stringify(g) === JSON.stringify(shapeOf(st)));
  /** The statements FUNCTION_ACCESS and the factory wrote (event-source grants left out). */
  const declared = (name: FunctionName) =>
    statementsOfRole(s.json, logicalId(s.stack.functions.get(name).fn.role!)).filter((st) => !isEventSourceGrant(name, st));

  it('grants the event-source functions exactly what reading their source takes', () => {
    for (const f of s.stack.functions.all) {
      const fromSources = statementsOfRole(s.json, logicalId(f.fn.role!))
        .filter((st) => isEventSourceGrant(f.name, st))
        .map(shapeOf);
      expect({ fn: f.name, fromSources: sortShapes(fromSources) }).toEqual({
        fn: f.name,
        fromSources: sortShapes(eventSourceGrants(f.name)),
      });
    }
  });

  it('grants sqs:SendMessage on the delivery queue and kms:Encrypt/Decrypt on the webhook key exactly as declared', () => {
    const senders: string[] = [];
    const encrypters: string[] = [];
    const decrypters: string[] = [];
    for (const f of s.stack.functions.all) {
      const sts = declared(f.name);
      const sqsActions = sts.flatMap(actionsOf).filter((a) => a.startsWith('sqs:'));
      expect({ fn: f.name, sqsActions }).toEqual({ fn: f.name, sqsActions: f.access.queue.map((a) => `sqs:${a}`) });
      const kmsActions = sts.flatMap(actionsOf).filter((a) => a.startsWith('kms:'));
      expect({ fn: f.name, kmsActions }).toEqual({ fn: f.name, kmsActions: f.access.kms.map(kmsActionName) });
      for (const st of sts) {
        if (actionsOf(st).some((a) => a.startsWith('sqs:'))) expect(resourcesOf(st).map(flatten)).toEqual([queueArn()]);
        if (actionsOf(st).some((a) => a.startsWith('kms:'))) expect(resourcesOf(st).map(flatten)).toEqual([keyArn()]);
        // A decrypt is bound to its purpose, the encryption context the code seals with.
        if (actionsOf(st).includes('kms:Decrypt')) {
          const purpose = f.access.kms.find((a) => a.startsWith('Decrypt:'))!.split(':')[1];
          expect((st as { Condition?: unknown }).Condition).toEqual({ StringEquals: { 'kms:EncryptionContext:purpose': purpose } });
        }
      }
      if (sqsActions.includes('sqs:SendMessage')) senders.push(f.name);
      if (kmsActions.includes('kms:Encrypt')) encrypters.push(f.name);
      if (kmsActions.includes('kms:Decrypt')) decrypters.push(f.name);
    }
    expect(senders.sort()).toEqual(['deliver-webhooks', 'dispatch-events']);
    expect(encrypters).toEqual(['create-webhook']);
    expect(decrypters.sort()).toEqual(['create-webhook', 'deliver-webhooks']);
    // Besides the declared senders, only the dispatcher's failure destination sends (to the dead-letter queue).
    const allSends = resourcesOfType(s.json, 'AWS::IAM::Policy')
      .flatMap(([, p]) => p.Properties?.PolicyDocument.Statement as Statement[])
      .filter((st) => actionsOf(st).some((a) => a === 'sqs:SendMessage' || a === 'kms:Decrypt' || a === 'kms:Encrypt'));
    expect(allSends).toHaveLength(senders.length + encrypters.length + decrypters.length + 1);
  });

  it('grants exactly the declared DynamoDB and Step Functions actions, never a wildcard action', () => {
    for (const f of s.stack.functions.all) {
      const statements = declared(f.name);
      const actions = statements.flatMap(actionsOf);
      expect(actions.filter((a) => a.includes('*'))).toEqual([]);
      expect(statements.every((st) => st.Effect === 'Allow')).toBe(true);

      const dynamo = [...new Set(actions.filter((a) => a.startsWith('dynamodb:')))].sort();
      const wantDynamo = [...itemActionsOf(f.access), ...(f.access.query.table || f.access.query.indexes.length ? ['Query'] : [])]
        .map((a) => `dynamodb:${a}`)
        .sort();
      expect({ fn: f.name, dynamo }).toEqual({ fn: f.name, dynamo: wantDynamo });

      const states = actions.filter((a) => a.startsWith('states:')).sort();
      expect({ fn: f.name, states }).toEqual({ fn: f.name, states: f.access.states.map((a) => `states:${a}`).sort() });

      // Nothing else but the queue and the key (checked below), logging and tracing.
      expect(actions.filter((a) => !/^(dynamodb|states|sqs|kms):/.test(a)).sort()).toEqual([
        'logs:CreateLogStream',
        'logs:PutLogEvents',
        'xray:PutTelemetryRecords',
        'xray:PutTraceSegments',
      ]);
    }
  });

  it('scopes item actions to the table, Query to the declared indexes, and executions to this state machine', () => {
    const smName = `<GetAtt:${logicalId(s.stack.workflow.stateMachine)}.Name>`;
    for (const f of s.stack.functions.all) {
      for (const st of declared(f.name)) {
        const resources = resourcesOf(st).map(flatten);
        const actions = actionsOf(st);
        if (actions.includes('dynamodb:Query')) {
          expect(actions).toEqual(['dynamodb:Query']);
          expect(resources.sort()).toEqual(
            [
              ...(f.access.query.table ? [tableArn()] : []),
              ...physicalIndexes(f.access.query.indexes).map((i) => `${tableArn()}/index/${i}`),
            ].sort(),
          );
        } else if (actions.some((a) => a.startsWith('dynamodb:'))) {
          expect(resources).toEqual([tableArn()]);
        } else if (actions.includes('states:StartExecution')) {
          expect(resources).toEqual([`<Ref:${logicalId(s.stack.workflow.stateMachine)}>`]);
        } else if (actions.some((a) => a.startsWith('states:'))) {
          expect(resources).toHaveLength(1);
          expect(resources[0]).toMatch(
            new RegExp(`^arn:<Ref:AWS::Partition>:states:<Ref:AWS::Region>:<Ref:AWS::AccountId>:execution:${escapeRegExp(smName)}:\\*$`),
          );
        }
      }
    }
  });

  /** The DynamoDB item statements of a function (Query apart), with their conditions. */
  const itemStatements = (name: FunctionName) =>
    declared(name).filter(
      (st) => actionsOf(st).some((a) => a.startsWith('dynamodb:')) && !actionsOf(st).includes('dynamodb:Query'),
    ) as (Statement & {
      Condition?: Record<string, Record<string, unknown>>;
    })[];
  /** IAM StringLike: `*` any run of characters, `?` one. */
  const like = (pattern: string, value: string) =>
    new RegExp(
      `^${pattern
        .split('')
        .map((c) => (c === '*' ? '.*' : c === '?' ? '.' : escapeRegExp(c)))
        .join('')}$`,
    ).test(value);
  const leadingKeysOf = (st: { Condition?: Record<string, Record<string, unknown>> }) =>
    (st.Condition?.['ForAllValues:StringLike']?.['dynamodb:LeadingKeys'] ?? []) as string[];

  it('scopes every DynamoDB item grant to the partitions, attributes and ReturnValues its entry declares', () => {
    for (const f of s.stack.functions.all) {
      const got = itemStatements(f.name).map((st) => ({ actions: actionsOf(st).sort(), condition: st.Condition }));
      const want = f.access.items.map((g) => ({ actions: g.actions.map((a) => `dynamodb:${a}`).sort(), condition: itemConditions(g) }));
      expect({ fn: f.name, grants: sortShapes(got) }).toEqual({ fn: f.name, grants: sortShapes(want) });
      // Each partition grant requires a partition key: ForAllValues alone holds for a request naming none.
      for (const st of itemStatements(f.name)) expect(st.Condition?.Null).toEqual({ 'dynamodb:LeadingKeys': 'false' });
    }
  });

  // The dashboard's key management (issue 15): the only functions that make, revoke or list keys.
  const KEY_MANAGEMENT: Readonly<Record<string, string[]>> = {
    'dashboard-create-key': ['dynamodb:PutItem'],
    'dashboard-revoke-key': ['dynamodb:GetItem', 'dynamodb:UpdateItem'],
  };
  const KEY_READERS = ['dashboard-list-keys', 'dashboard-revoke-key', 'dashboard-list-key-usage'];

  it('lets no function but key management create, delete or revoke an API key: key items only take the admission counters', () => {
    const keyItem = 'KEY#9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08';
    const admitting: string[] = [];
    const managing: string[] = [];
    for (const f of s.stack.functions.all) {
      for (const st of itemStatements(f.name)) {
        if (!leadingKeysOf(st).some((p) => like(p, keyItem))) continue;
        if (KEY_MANAGEMENT[f.name]) {
          managing.push(f.name);
          expect({ fn: f.name, actions: actionsOf(st).sort() }).toEqual({ fn: f.name, actions: KEY_MANAGEMENT[f.name] });
          continue;
        }
        admitting.push(f.name);
        expect({ fn: f.name, actions: actionsOf(st) }).toEqual({ fn: f.name, actions: ['dynamodb:UpdateItem'] });
        const attributes = st.Condition?.['ForAllValues:StringEquals']?.['dynamodb:Attributes'] as string[];
        expect(attributes).toEqual([...ADMISSION_ATTRIBUTES]);
        for (const owned of ['id', 'org_id', 'scopes', 'hash', 'hint', 'name', 'created_at', 'gsi1pk', 'gsi2pk'])
          expect(attributes).not.toContain(owned);
        expect(st.Condition?.StringEqualsIfExists).toEqual({ 'dynamodb:ReturnValues': ['NONE', 'ALL_OLD'] });
      }
    }
    // Exactly the functions that authenticate a key, and no Query may read an organization's key list.
    expect(admitting.sort()).toEqual(
      s.stack.functions.all
        .filter((f) => !KEY_MANAGEMENT[f.name] && f.access.items.some((g) => g.reach.includes('apiKey')))
        .map((f) => f.name)
        .sort(),
    );
    expect(admitting.length).toBeGreaterThan(15);
    expect(managing.sort()).toEqual(Object.keys(KEY_MANAGEMENT).sort());
    for (const f of s.stack.functions.all) {
      if (KEY_READERS.includes(f.name)) continue;
      for (const st of declared(f.name).filter((x) => actionsOf(x).includes('dynamodb:Query')) as {
        Condition?: Record<string, Record<string, unknown>>;
      }[]) {
        expect(st.Condition?.['ForAllValues:StringNotLike']).toEqual({ 'dynamodb:LeadingKeys': QUERY_EXCLUDED });
        expect(leadingKeysOf(st)).toEqual(f.access.query.reach.map(leadingKeyPattern));
        expect(leadingKeysOf(st).some((p) => like(p, keyItem) || like(p, 'KEYID#key_1'))).toBe(false);
        expect(QUERY_EXCLUDED.some((p) => like(p, 'ORG#acme#KEYS'))).toBe(true);
      }
    }
  });

  it('lets read-only handlers write nothing of an organization: only their key counters, usage entries and failure counts', () => {
    const writes = ['dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:DeleteItem'];
    const readOnly = routeList.filter((r) => r.method === 'GET' && r.access !== 'public').map((r) => r.handler as FunctionName);
    expect(readOnly.length).toBeGreaterThan(10);
    for (const name of readOnly) {
      const written = itemStatements(name)
        .filter((st) => actionsOf(st).some((a) => writes.includes(a)))
        .flatMap(leadingKeysOf);
      expect({ fn: name, written: [...new Set(written)].sort() }).toEqual({
        fn: name,
        written: [leadingKeyPattern('apiKey'), leadingKeyPattern('authFailures'), leadingKeyPattern('usage')].sort(),
      });
    }
  });

  it('lets the workflow and events functions reach only organizations, webhook deliveries and the active-operations index', () => {
    for (const f of s.stack.functions.all.filter((x) => x.kind !== 'http')) {
      const reached = [...itemStatements(f.name).flatMap(leadingKeysOf)];
      for (const p of reached) expect([leadingKeyPattern('org'), leadingKeyPattern('deliveries')]).toContain(p);
    }
  });

  it('reserves no concurrency in dev (a new account could not deploy it)', () => {
    for (const f of s.stack.functions.all) expect(s.json.Resources[fnId(f.name)]!.Properties?.ReservedConcurrentExecutions).toBeUndefined();
  });

  it('lets the public and fallback handlers touch no data at all', () => {
    for (const name of ['get-openapi', 'get-docs', 'route-not-found'] as const) {
      const actions = statementsOfRole(s.json, logicalId(s.stack.functions.get(name).fn.role!)).flatMap(actionsOf);
      expect(actions.filter((a) => /^(dynamodb|states|sqs|kms):/.test(a))).toEqual([]);
    }
  });

  it('uses no AWS managed policy on function roles', () => {
    for (const f of s.stack.functions.all) {
      expect(s.json.Resources[logicalId(f.fn.role!)]!.Properties?.ManagedPolicyArns).toBeUndefined();
    }
  });
});

function sortShapes<T>(shapes: T[]): T[] {
  return [...shapes].sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)));
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

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
        expect(found[0]).toMatchObject({ target: fnId(route.handler as FunctionName), integration: 'AWS_PROXY', auth: 'NONE' });
      }
    }
    const routed = all.filter((m) => m.method !== 'ANY');
    expect(routed).toHaveLength(routeList.length + dashboardRouteList.length);
  });

  it('answers other methods and unknown paths under either prefix with route-not-found (ANY on every resource, {proxy+})', () => {
    const all = methods();
    const notFound = fnId('route-not-found');
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

  it('outputs ApiUrl ending in /api/v1, TableName and StateMachineArn', () => {
    const out = s.json.Outputs!;
    expect(flatten(out.ApiUrl!.Value)).toMatch(
      new RegExp(
        `^https://<Ref:[A-Za-z0-9]+>\\.execute-api\\.<Ref:AWS::Region>\\.<Ref:AWS::URLSuffix>/<Ref:[A-Za-z0-9]+>${escapeRegExp(API_PREFIX)}$`,
      ),
    );
    expect(out.TableName!.Value).toEqual({ Ref: logicalId(s.stack.data.table) });
    expect(out.StateMachineArn!.Value).toEqual({ Ref: logicalId(s.stack.workflow.stateMachine) });
  });
});

describe('operation workflow', () => {
  it('is the ASL file as written, with each ${XFunctionArn} filled by the function for functions/workflow/x.ts', () => {
    const [, sm] = resourcesOfType(s.json, 'AWS::StepFunctions::StateMachine')[0]!;
    const asl = fs.readFileSync(OPERATION_ASL, 'utf8');
    // DefinitionBody.fromFile ships the file as an asset; CloudFormation fills the placeholders.
    const uploaded = path.join(s.outdir, `asset.${sm.Properties?.DefinitionS3Location.Key}`);
    expect(fs.readFileSync(uploaded, 'utf8')).toBe(asl);
    const placeholders = [...new Set([...asl.matchAll(/\$\{(\w+)\}/g)].map((m) => m[1]))];
    expect(placeholders.length).toBeGreaterThan(0);
    const subs = sm.Properties?.DefinitionSubstitutions as Record<string, unknown>;
    expect(Object.keys(subs).sort()).toEqual([...placeholders].sort());
    expect(subs).toEqual({
      StartPhaseFunctionArn: { 'Fn::GetAtt': [fnId('start-phase'), 'Arn'] },
      CheckPhaseFunctionArn: { 'Fn::GetAtt': [fnId('check-phase'), 'Arn'] },
      CompleteOperationFunctionArn: { 'Fn::GetAtt': [fnId('complete-operation'), 'Arn'] },
      FailOperationFunctionArn: { 'Fn::GetAtt': [fnId('fail-operation'), 'Arn'] },
    });
  });

  it('logs ALL to its log group with execution data, and is traced', () => {
    s.template.hasResourceProperties('AWS::StepFunctions::StateMachine', {
      StateMachineType: 'STANDARD',
      TracingConfiguration: { Enabled: true },
      LoggingConfiguration: { Level: 'ALL', IncludeExecutionData: true, Destinations: [Match.anyValue()] },
    });
  });

  it('may invoke exactly its step functions', () => {
    const role = logicalId(s.stack.workflow.stateMachine.role);
    const invoke = statementsOfRole(s.json, role).filter((st) => actionsOf(st).includes('lambda:InvokeFunction'));
    expect(invoke).toHaveLength(1);
    expect(resourcesOf(invoke[0]!).map(flatten).sort()).toEqual(
      (['start-phase', 'check-phase', 'complete-operation', 'fail-operation'] as const).map((n) => `<GetAtt:${fnId(n)}.Arn>`).sort(),
    );
  });

  it('runs reconcile-operations every 5 minutes', () => {
    s.template.hasResourceProperties('AWS::Events::Rule', {
      ScheduleExpression: 'rate(5 minutes)',
      State: 'ENABLED',
      Targets: [Match.objectLike({ Arn: { 'Fn::GetAtt': [fnId('reconcile-operations'), 'Arn'] } })],
    });
  });
});

describe('webhook delivery', () => {
  const fnTimeout = (name: FunctionName) => s.json.Resources[fnId(name)]!.Properties?.Timeout as number;

  it('has a rotating KMS key with an alias, destroyed with a dev stack', () => {
    s.template.resourceCountIs('AWS::KMS::Key', 1);
    s.template.hasResource('AWS::KMS::Key', { DeletionPolicy: 'Delete', Properties: Match.objectLike({ EnableKeyRotation: true }) });
    s.template.hasResourceProperties('AWS::KMS::Alias', {
      AliasName: 'alias/DeploymentApi-dev/webhook-secrets',
      TargetKeyId: { 'Fn::GetAtt': [logicalId(s.stack.webhooks.key), 'Arn'] },
    });
  });

  it('has a delivery queue (SSE, visible again after 6 × the deliverer timeout) redriving to a 14-day dead-letter queue after 5 receives', () => {
    const queue = s.json.Resources[logicalId(s.stack.webhooks.queue)]!.Properties!;
    const dlq = s.json.Resources[logicalId(s.stack.webhooks.deadLetterQueue)]!.Properties!;
    expect(queue).toMatchObject({
      SqsManagedSseEnabled: true,
      VisibilityTimeout: 6 * fnTimeout('deliver-webhooks'),
      RedrivePolicy: { deadLetterTargetArn: { 'Fn::GetAtt': [logicalId(s.stack.webhooks.deadLetterQueue), 'Arn'] }, maxReceiveCount: 5 },
    });
    expect(dlq).toMatchObject({ SqsManagedSseEnabled: true, MessageRetentionPeriod: 14 * 86_400 });
    s.template.resourceCountIs('AWS::SQS::Queue', 2);
  });

  it('denies non-TLS access to both queues', () => {
    const policies = resourcesOfType(s.json, 'AWS::SQS::QueuePolicy').map(([, p]) => p.Properties!);
    for (const q of [s.stack.webhooks.queue, s.stack.webhooks.deadLetterQueue]) {
      const policy = policies.find((p) => (p.Queues as unknown[]).some((r) => flatten(r) === `<Ref:${logicalId(q)}>`));
      expect(policy?.PolicyDocument.Statement).toContainEqual(
        expect.objectContaining({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }),
      );
    }
  });

  it('runs dispatch-events on the table stream: new event items only, bisecting and bounded, failures to the dead-letter queue', () => {
    s.template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      FunctionName: { Ref: fnId('dispatch-events') },
      EventSourceArn: { 'Fn::GetAtt': [logicalId(s.stack.data.table), 'StreamArn'] },
      StartingPosition: 'LATEST',
      BatchSize: 100,
      BisectBatchOnFunctionError: true,
      FunctionResponseTypes: ['ReportBatchItemFailures'],
      MaximumRetryAttempts: 10,
      DestinationConfig: { OnFailure: { Destination: { 'Fn::GetAtt': [logicalId(s.stack.webhooks.deadLetterQueue), 'Arn'] } } },
      FilterCriteria: {
        Filters: [{ Pattern: JSON.stringify({ eventName: ['INSERT'], dynamodb: { NewImage: { sk: { S: [{ prefix: 'EVT#' }] } } } }) }],
      },
    });
  });

  it('runs deliver-webhooks on the delivery queue, 10 messages at a time, reporting failures per message', () => {
    s.template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      FunctionName: { Ref: fnId('deliver-webhooks') },
      EventSourceArn: { 'Fn::GetAtt': [logicalId(s.stack.webhooks.queue), 'Arn'] },
      BatchSize: 10,
      FunctionResponseTypes: ['ReportBatchItemFailures'],
    });
    s.template.resourceCountIs('AWS::Lambda::EventSourceMapping', 2);
  });

  it('gives the events functions no VPC (the deliverer POSTs to the internet)', () => {
    for (const name of EVENTS_FUNCTIONS) expect(s.json.Resources[fnId(name)]!.Properties?.VpcConfig).toBeUndefined();
  });
});

describe('operations', () => {
  const alarms = () => resourcesOfType(s.json, 'AWS::CloudWatch::Alarm').map(([, a]) => a.Properties!);

  it('alarms on the API 5xx rate', () => {
    expect(
      alarms().filter(
        (a) => a.MetricName === '5XXError' && a.Namespace === 'AWS/ApiGateway' && a.Statistic === 'Average' && a.Threshold === 0.05,
      ),
    ).toHaveLength(1);
  });

  it('alarms on errors and throttles of every function', () => {
    for (const f of s.stack.functions.all) {
      for (const metric of ['Errors', 'Throttles']) {
        const found = alarms().filter(
          (a) => a.MetricName === metric && a.Namespace === 'AWS/Lambda' && a.Dimensions?.[0]?.Value?.Ref === fnId(f.name),
        );
        expect({ fn: f.name, metric, n: found.length }).toEqual({ fn: f.name, metric, n: 1 });
      }
    }
  });

  it('alarms on failed and timed-out workflow executions and on DynamoDB throttling', () => {
    const names = alarms()
      .filter((a) => a.Namespace === 'AWS/States')
      .map((a) => a.MetricName)
      .sort();
    expect(names).toEqual(['ExecutionsFailed', 'ExecutionsTimedOut']);
    const dynamo = alarms().filter((a) => a.Metrics?.some((m: any) => m.MetricStat?.Metric.Namespace === 'AWS/DynamoDB'));
    expect(dynamo).toHaveLength(1);
  });

  it('alarms on any message in the webhook dead-letter queue, and on the dispatcher falling behind the stream', () => {
    const dlq = alarms().filter((a) => a.Namespace === 'AWS/SQS');
    expect(dlq).toHaveLength(1);
    expect(dlq[0]).toMatchObject({
      MetricName: 'ApproximateNumberOfMessagesVisible',
      Dimensions: [{ Name: 'QueueName', Value: { 'Fn::GetAtt': [logicalId(s.stack.webhooks.deadLetterQueue), 'QueueName'] } }],
      Threshold: 1,
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
    });
    const age = alarms().filter((a) => a.MetricName === 'IteratorAge');
    expect(age).toHaveLength(1);
    expect(age[0]).toMatchObject({
      Namespace: 'AWS/Lambda',
      Dimensions: [{ Name: 'FunctionName', Value: { Ref: fnId('dispatch-events') } }],
    });
  });

  it('sends every alarm to the alarm topic, and has a dashboard', () => {
    const topic = logicalId(s.stack.monitoring.topic);
    for (const a of alarms()) expect(a.AlarmActions).toEqual([{ Ref: topic }]);
    s.template.resourceCountIs('AWS::CloudWatch::Dashboard', 1);
  });

  it('keeps logs a week in dev, and lets them go with the stack', () => {
    for (const [, lg] of resourcesOfType(s.json, 'AWS::Logs::LogGroup')) {
      expect(lg.Properties?.RetentionInDays).toBe(7);
      expect(lg.DeletionPolicy).toBe('Delete');
    }
  });
});

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
      const env = s.json.Resources[fnId(f.name)]!.Properties?.Environment.Variables;
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
  });

  it('deploys the built app and its config with the stack, and outputs its URL and the user pool id', () => {
    const deploy = one('Custom::CDKBucketDeployment');
    // The script, the stylesheet, the page and config.json (whose client id is filled in at deploy time).
    expect(deploy.SourceObjectKeys).toHaveLength(4);
    expect(flatten(deploy.SourceMarkers)).toContain(logicalId(s.stack.dashboardUsers.client));
    expect(Object.keys(s.json.Outputs ?? {})).toEqual(expect.arrayContaining(['DashboardUrl', 'UserPoolId']));
  });
});
