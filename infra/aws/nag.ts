/**
 * Helpers for acknowledging cdk-nag findings precisely. cdk-nag 3 names each IAM5
 * finding after the flattened resource (`Resource::arn:<AWS::Partition>:…`), so an
 * acknowledgement must spell the resource the same way; this renders a token the way
 * cdk-nag does (its utils/flatten-cfn-reference), instead of a hand-copied string
 * that breaks when the region or a logical id changes.
 */
import { Stack } from 'aws-cdk-lib';
import type { IConstruct } from 'constructs';

type Cfn = string | { 'Fn::Join'?: [string, Cfn[]]; 'Fn::GetAtt'?: [string, string]; Ref?: string } | undefined;

function flatten(node: Cfn): string {
  if (node === undefined) return '';
  if (typeof node === 'string') return node.replace(/\$\{/g, '<').replace(/\}/g, '>');
  if (node['Fn::Join']) return node['Fn::Join'][1].map(flatten).join(node['Fn::Join'][0]);
  if (node['Fn::GetAtt']) return `<${node['Fn::GetAtt'][0]}.${node['Fn::GetAtt'][1]}>`;
  if (node.Ref !== undefined) return `<${node.Ref}>`;
  return JSON.stringify(node);
}

/** The id of the AwsSolutions-IAM5 finding for a wildcard resource, e.g. `AwsSolutions-IAM5[Resource::arn:…:*]`. */
export function iam5ResourceFinding(scope: IConstruct, resource: string): string {
  return `AwsSolutions-IAM5[Resource::${flatten(Stack.of(scope).resolve(resource) as Cfn)}]`;
}

/**
 * Log groups take no customer managed key (Control Tower CT.CLOUDWATCH.PR.3, checked by
 * `npm run validate:aws`): acknowledged on every log group the stack makes, with this reason.
 */
export const LOG_GROUP_KMS = {
  id: 'cdk-validator-cfnguard::cloudwatch_log_group_encrypted_check',
  reason:
    'CloudWatch Logs encrypts every log group at rest with keys it manages; the logs hold no secrets (the logger redacts them and every test run audits its own logs for them, decision 119), so a customer managed key would add a key policy and a cost without protecting anything more.',
} as const;
