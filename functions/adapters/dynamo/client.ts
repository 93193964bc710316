/**
 * The process's one DynamoDB client, created at module load. The SDK finds a local
 * endpoint through the standard AWS_ENDPOINT_URL_DYNAMODB variable, so this code path
 * is the same on Lambda and against DynamoDB Local.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { config } from '../../lib/config.js';

export const ddb = DynamoDBDocumentClient.from(new DynamoDBClient({}), {
  marshallOptions: { removeUndefinedValues: true },
});

export const tableName = (): string => config().tableName;
