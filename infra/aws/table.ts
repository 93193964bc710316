/** The one DynamoDB table, built from the same definition the local host uses. */
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import { Construct } from 'constructs';
import { INDEXES, TABLE_KEYS, TABLE_STREAM, TTL_ATTRIBUTE } from '../../contract/table/table.js';
import type { Settings } from './settings.js';

const S = dynamodb.AttributeType.STRING;

export class DataTable extends Construct {
  readonly table: dynamodb.Table;

  constructor(scope: Construct, id: string, settings: Settings) {
    super(scope, id);
    this.table = new dynamodb.Table(this, 'Table', {
      partitionKey: { name: TABLE_KEYS.partitionKey, type: S },
      sortKey: { name: TABLE_KEYS.sortKey, type: S },
      billingMode: dynamodb.BillingMode.PAY_PER_REQUEST,
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
      encryption: dynamodb.TableEncryption.AWS_MANAGED,
      timeToLiveAttribute: TTL_ATTRIBUTE,
      stream: dynamodb.StreamViewType[TABLE_STREAM.StreamViewType],
      deletionProtection: settings.deletionProtection,
      removalPolicy: settings.removalPolicy,
    });
    for (const index of INDEXES) {
      this.table.addGlobalSecondaryIndex({
        indexName: index.name,
        partitionKey: { name: index.partitionKey, type: S },
        sortKey: { name: index.sortKey, type: S },
        projectionType: dynamodb.ProjectionType.ALL,
      });
    }
  }
}
