/**
 * Least privilege per function (infra/aws/function-access.ts): every grant as declared, scoped to its
 * partitions, attributes, indexes and state machine, and nothing granted by a managed policy.
 */

import { routeList } from '../../contract/routes.js';
import { ADMISSION_ATTRIBUTES, WAIT_SLOT_ATTRIBUTES } from '../../contract/table/attributes.js';
import {
  type FunctionName,
  itemActionsOf,
  kmsActionName,
  leadingKeyPattern,
  physicalIndexes,
  QUERY_EXCLUDED,
} from '../../infra/aws/function-access.js';
import { itemConditions } from '../../infra/aws/function-grants.js';
import {
  actionsOf,
  escapeRegExp,
  flatten,
  fnId,
  logicalId,
  policiesOf,
  resourcesOf,
  type Statement,
  stageOf,
  statementsOfRole,
} from './synth.js';

const s = stageOf({ stage: 'dev' });

function sortShapes<T>(shapes: T[]): T[] {
  return [...shapes].sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)));
}

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
      // Each purpose it may decrypt (a phase step opens two, decision 256) is a statement of its own.
      const decryptPurposes: string[] = [];
      const sqsActions = sts.flatMap(actionsOf).filter((a) => a.startsWith('sqs:'));
      expect({ fn: f.name, sqsActions }).toEqual({ fn: f.name, sqsActions: f.access.queue.map((a) => `sqs:${a}`) });
      const kmsActions = sts.flatMap(actionsOf).filter((a) => a.startsWith('kms:'));
      expect({ fn: f.name, kmsActions }).toEqual({ fn: f.name, kmsActions: f.access.kms.map(kmsActionName) });
      for (const st of sts) {
        if (actionsOf(st).some((a) => a.startsWith('sqs:'))) expect(resourcesOf(st).map(flatten)).toEqual([queueArn()]);
        if (actionsOf(st).some((a) => a.startsWith('kms:'))) expect(resourcesOf(st).map(flatten)).toEqual([keyArn()]);
        // A decrypt is bound to its purpose, the encryption context the code seals with.
        if (actionsOf(st).includes('kms:Decrypt')) {
          const condition = (st as { Condition?: { StringEquals?: Record<string, unknown> } }).Condition;
          expect(Object.keys(condition ?? {})).toEqual(['StringEquals']);
          expect(Object.keys(condition!.StringEquals!)).toEqual(['kms:EncryptionContext:purpose']);
          decryptPurposes.push(String(condition!.StringEquals!['kms:EncryptionContext:purpose']));
        }
        // An encrypt must bind what it seals to a purpose, an organization and a record.
        if (actionsOf(st).includes('kms:Encrypt')) {
          const bound = {
            'kms:EncryptionContext:purpose': 'false',
            'kms:EncryptionContext:org': 'false',
            'kms:EncryptionContext:record': 'false',
          };
          expect((st as { Condition?: unknown }).Condition).toEqual({ Null: bound });
        }
      }
      expect({ fn: f.name, decryptPurposes: decryptPurposes.sort() }).toEqual({
        fn: f.name,
        decryptPurposes: f.access.kms.flatMap((a) => (a.startsWith('Decrypt:') ? [a.split(':')[1]] : [])).sort(),
      });
      if (sqsActions.includes('sqs:SendMessage')) senders.push(f.name);
      if (kmsActions.includes('kms:Encrypt')) encrypters.push(f.name);
      if (kmsActions.includes('kms:Decrypt')) decrypters.push(f.name);
    }
    expect(senders.sort()).toEqual(['deliver-webhooks', 'dispatch-events']);
    expect(encrypters.sort()).toEqual([
      'create-app-user',
      'create-deployment',
      'create-webhook',
      'dashboard-create-deployment',
      'dashboard-update-deployment',
      'update-deployment',
    ]);
    expect(decrypters.sort()).toEqual(['check-phase', 'create-app-user', 'create-webhook', 'deliver-webhooks', 'start-phase']);
    // Besides the declared senders, only the dispatcher's failure destination sends (to the dead-letter queue).
    const allSends = policiesOf(s.json)
      .flatMap((p) => p.statements)
      .filter((st) => actionsOf(st).some((a) => a === 'sqs:SendMessage' || a === 'kms:Decrypt' || a === 'kms:Encrypt'));
    // One statement per purpose a function may decrypt.
    const decryptStatements = s.stack.functions.all.reduce((n, f) => n + f.access.kms.filter((a) => a.startsWith('Decrypt:')).length, 0);
    expect(allSends).toHaveLength(senders.length + encrypters.length + decryptStatements + 1);
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

      // The key-signing secret: read by exactly the functions declared to verify or mint keys (decision 121).
      expect({ fn: f.name, secret: actions.filter((a) => a.startsWith('secretsmanager:')).sort() }).toEqual({
        fn: f.name,
        secret: f.access.apiKeySecret ? ['secretsmanager:DescribeSecret', 'secretsmanager:GetSecretValue'] : [],
      });

      // Nothing else but the queue, the key and the user pool (checked in their own tests), logging and tracing.
      expect(actions.filter((a) => !/^(dynamodb|states|sqs|kms|cognito-idp|secretsmanager):/.test(a)).sort()).toEqual([
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

  // The dashboard's key management (docs/dashboard.md): the only functions that make, revoke or list keys.
  const KEY_MANAGEMENT: Readonly<Record<string, string[]>> = {
    'dashboard-create-key': ['dynamodb:PutItem'],
    'dashboard-revoke-key': ['dynamodb:GetItem', 'dynamodb:UpdateItem'],
    'dashboard-rotate-key': ['dynamodb:PutItem', 'dynamodb:UpdateItem'],
  };
  // dashboard-list-activity reads only the keys' ids and names (app/activity.ts).
  const KEY_READERS = [
    'dashboard-list-keys',
    'dashboard-revoke-key',
    'dashboard-rotate-key',
    'dashboard-list-key-usage',
    'dashboard-list-activity',
  ];

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
      // A wait also holds one of its organization's wait slots (decision 125): those items' attributes only.
      const slots = name === 'wait-operation' ? [leadingKeyPattern('org')] : [];
      expect({ fn: name, written: [...new Set(written)].sort() }).toEqual({
        fn: name,
        written: [leadingKeyPattern('apiKey'), leadingKeyPattern('authFailures'), leadingKeyPattern('usage'), ...slots].sort(),
      });
    }
    const slotWrites = itemStatements('wait-operation').filter(
      (st) => leadingKeysOf(st).includes(leadingKeyPattern('org')) && actionsOf(st).some((a) => writes.includes(a)),
    );
    expect(slotWrites.map((st) => st.Condition?.['ForAllValues:StringEquals']?.['dynamodb:Attributes'])).toEqual([
      [...WAIT_SLOT_ATTRIBUTES],
    ]);
  });

  it('lets the workflow and events functions reach only organizations, webhook deliveries and the active-operations index', () => {
    for (const f of s.stack.functions.all.filter((x) => x.kind !== 'http')) {
      const reached = [...itemStatements(f.name).flatMap(leadingKeysOf)];
      for (const p of reached) expect([leadingKeyPattern('org'), leadingKeyPattern('deliveries')]).toContain(p);
    }
  });

  it('reserves no concurrency in dev (a new account could not deploy it)', () => {
    for (const f of s.stack.functions.all)
      expect(s.json.Resources[fnId(s, f.name)]!.Properties?.ReservedConcurrentExecutions).toBeUndefined();
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
