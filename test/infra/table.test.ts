/** The table (infra/aws/table.ts): the definition the local host creates, and how a dev stack keeps it. */
import { createTableInput, TTL_ATTRIBUTE } from '../../contract/table/table.js';
import { resourcesOfType, stageOf } from './synth.js';

const s = stageOf({ stage: 'dev' });

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
