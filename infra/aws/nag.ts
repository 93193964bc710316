/**
 * Helpers for the template checks: cdk-nag at every synth, and `npm run validate:aws`'s
 * Control Tower rules and cfn-lint, whose findings are acknowledged the same way
 * (`Validations.of(construct).acknowledge({ id, reason })` in the construct that makes the
 * resource, decision 173).
 *
 * cdk-nag 3 names each IAM5 finding after the flattened resource
 * (`Resource::arn:<AWS::Partition>:…`), so an acknowledgement must spell the resource the
 * same way; iam5ResourceFinding renders a token the way cdk-nag does (its
 * utils/flatten-cfn-reference), instead of a hand-copied string that breaks when the region
 * or a logical id changes.
 */
import { CfnResource, Lazy, Stack } from 'aws-cdk-lib';
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

/**
 * No function runs in a VPC (Control Tower CT.LAMBDA.PR.3, checked by `npm run validate:aws`):
 * acknowledged on the functions the stack makes and on CDK's BucketDeployment function
 * (decision 176).
 */
export const OUTSIDE_VPC = {
  id: 'cdk-validator-cfnguard::lambda_inside_vpc_check',
  reason:
    "Nothing the functions reach lives in a VPC: they call AWS APIs (DynamoDB, Step Functions, SQS, KMS, Secrets Manager, S3, CloudFront, Cognito) over TLS, each call signed and allowed by the function's own role, and deliver-webhooks POSTs to customers' HTTPS endpoints on the internet. A VPC would add NAT gateways and interface endpoints, billed by the hour, and their resources to a stack kept under CloudFormation's limit, for no boundary the roles do not already draw.",
} as const;

/**
 * aws-cdk-lib makes a function or a state machine DependsOn its role construct, so that a
 * role's separate AWS::IAM::Policy exists before it runs; the role itself is already ordered
 * by the GetAtt that names it, and cfn-lint flags that entry (W3005). This drops it, and only
 * it, when the template is written: any other dependency (a role's DefaultPolicy, one added
 * later) stays.
 */
export function dropRoleDependsOn(resource: CfnResource, role: IConstruct): void {
  const roleResource = role.node.defaultChild;
  resource.addOverride(
    'DependsOn',
    Lazy.list(
      {
        produce: () =>
          resource
            .obtainDependencies()
            .filter((d): d is CfnResource => CfnResource.isCfnResource(d) && d !== roleResource && Stack.of(d) === Stack.of(resource))
            .sort((a, b) => a.node.path.localeCompare(b.node.path))
            .map((d) => d.logicalId),
      },
      { omitEmpty: true },
    ),
  );
}
