/**
 * The IAM translation of a function's access entry (FUNCTION_ACCESS, function-access.ts):
 * each table, index, queue, key, secret, user pool and state machine action it declares
 * becomes a policy statement on the function's role, with the conditions that keep it to
 * the partitions, attributes and encryption contexts the entry names. The function factory
 * (functions.ts) calls it once per function; nothing else grants a function data access.
 */
import { ArnFormat, Stack, Validations } from 'aws-cdk-lib';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as kms from 'aws-cdk-lib/aws-kms';
import type * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import type * as sfn from 'aws-cdk-lib/aws-stepfunctions';
import { SEAL_CONTEXT_KEYS } from '../../contract/sealing.js';
import {
  type FunctionAccess,
  type ItemGrant,
  type KmsAction,
  kmsActionName,
  leadingKeyPattern,
  physicalIndexes,
  QUERY_EXCLUDED,
  type Reach,
} from './function-access.js';
import { iam5ResourceFinding } from './nag.js';

/** Where a function's data lives; FUNCTION_ACCESS says which of these it may touch. */
export interface AccessTargets {
  readonly table: dynamodb.ITable;
  /** The webhook delivery queue (FunctionAccess.queue). */
  readonly deliveryQueue: sqs.IQueue;
  /** The key that seals webhook secrets (FunctionAccess.kms). */
  readonly webhookKey: kms.IKey;
  /** The secret API keys are signed with (FunctionAccess.apiKeySecret). */
  readonly apiKeySecret: secretsmanager.ISecret;
  /** The dashboard's user pool (FunctionAccess.userPool and .users). */
  readonly userPool: { readonly issuer: string; readonly clientId: string; readonly arn: string };
}

/**
 * What binds a use of the webhook key (core/secret-sealer.ts): everything sealed is
 * bound to a purpose, an organization and a record; a Decrypt only to its purpose, as
 * texts sealed before the organization and record were bound must still open.
 */
function kmsConditions(action: KmsAction): Record<string, Record<string, string>> {
  const [, purpose] = action.split(':');
  if (purpose) return { StringEquals: { 'kms:EncryptionContext:purpose': purpose } };
  return { Null: Object.fromEntries(SEAL_CONTEXT_KEYS.map((k) => [`kms:EncryptionContext:${k}`, 'false'])) };
}

/** Turns one FUNCTION_ACCESS entry into policy statements on the function's role. */
export function grantAccess(role: iam.IRole, access: FunctionAccess, targets: AccessTargets, stateMachine?: sfn.StateMachine): void {
  const { table, deliveryQueue, webhookKey } = targets;
  if (access.users.length > 0) {
    role.addToPrincipalPolicy(
      new iam.PolicyStatement({
        actions: access.users.map((a) => `cognito-idp:${a}`),
        resources: [targets.userPool.arn],
      }),
    );
  }
  if (access.apiKeySecret) targets.apiKeySecret.grantRead(role);
  if (access.queue.length > 0) {
    role.addToPrincipalPolicy(
      new iam.PolicyStatement({
        actions: access.queue.map((a) => `sqs:${a}`),
        resources: [deliveryQueue.queueArn],
      }),
    );
  }
  for (const action of access.kms) {
    role.addToPrincipalPolicy(
      new iam.PolicyStatement({
        actions: [kmsActionName(action)],
        resources: [webhookKey.keyArn],
        conditions: kmsConditions(action),
      }),
    );
  }
  for (const grant of access.items) {
    role.addToPrincipalPolicy(
      new iam.PolicyStatement({
        actions: grant.actions.map((a) => `dynamodb:${a}`),
        resources: [table.tableArn],
        conditions: itemConditions(grant),
      }),
    );
  }
  const queryOn = [
    ...(access.query.table ? [table.tableArn] : []),
    ...physicalIndexes(access.query.indexes).map((index) => `${table.tableArn}/index/${index}`),
  ];
  if (queryOn.length > 0) {
    role.addToPrincipalPolicy(
      new iam.PolicyStatement({
        actions: ['dynamodb:Query'],
        resources: queryOn,
        conditions: {
          ...leadingKeys(access.query.reach),
          // Key management reads the key lists; nothing else may, whatever its reach.
          ...(access.query.reach.includes('orgKeyLists')
            ? {}
            : { 'ForAllValues:StringNotLike': { 'dynamodb:LeadingKeys': QUERY_EXCLUDED } }),
        },
      }),
    );
  }
  if (!stateMachine) return;
  if (access.states.includes('StartExecution')) {
    role.addToPrincipalPolicy(
      new iam.PolicyStatement({
        actions: ['states:StartExecution'],
        resources: [stateMachine.stateMachineArn],
      }),
    );
  }
  const onExecutions = access.states.filter((a) => a !== 'StartExecution');
  if (onExecutions.length > 0) {
    const executions = executionArnPattern(stateMachine);
    role.addToPrincipalPolicy(
      new iam.PolicyStatement({
        actions: onExecutions.map((a) => `states:${a}`),
        resources: [executions],
      }),
    );
    Validations.of(role).acknowledge({
      id: iam5ResourceFinding(role, executions),
      reason:
        'Executions are named after operation ids, known only at run time; the pattern is limited to executions of this one state machine.',
    });
  }
}

/**
 * The partitions a request may reach. `ForAllValues` holds vacuously for a request that
 * names no partition key, so the `Null` test requires one.
 */
function leadingKeys(reach: readonly Reach[]): Record<string, Record<string, unknown>> {
  return {
    'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': reach.map(leadingKeyPattern) },
    Null: { 'dynamodb:LeadingKeys': 'false' },
  };
}

/** An item grant's IAM conditions: its partitions, and where it says so, the attributes and ReturnValues allowed. */
export function itemConditions(grant: ItemGrant): Record<string, Record<string, unknown>> {
  const conditions = leadingKeys(grant.reach);
  if (grant.attributes) conditions['ForAllValues:StringEquals'] = { 'dynamodb:Attributes': [...grant.attributes] };
  if (grant.returnValues) conditions.StringEqualsIfExists = { 'dynamodb:ReturnValues': [...grant.returnValues] };
  return conditions;
}

/** `arn:…:execution:<state machine name>:*`: every execution of this state machine, nothing else. */
export function executionArnPattern(stateMachine: sfn.StateMachine): string {
  return Stack.of(stateMachine).formatArn({
    service: 'states',
    resource: 'execution',
    resourceName: `${stateMachine.stateMachineName}:*`,
    arnFormat: ArnFormat.COLON_RESOURCE_NAME,
  });
}
