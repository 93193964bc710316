/**
 * The process's one DynamoDB client, created at module load. The SDK finds a local
 * endpoint through the standard AWS_ENDPOINT_URL_DYNAMODB variable, so this code path
 * is the same on Lambda and against DynamoDB Local.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { config } from '../../lib/config.js';

export const ddb = DynamoDBDocumentClient.from(new DynamoDBClient({}), {
  // An env name is any name, `constructor` included (decision 227): the SDK takes an object
  // whose own `constructor` is not Object for a class instance and refuses it unless told
  // to write its enumerable properties as a map, which is what every item here is.
  marshallOptions: { removeUndefinedValues: true, convertClassInstanceToMap: true },
});

export const tableName = (): string => config().tableName;
