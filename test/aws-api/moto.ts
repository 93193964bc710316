/**
 * moto's server (`moto_server`), an independent implementation of the AWS APIs, on a
 * free port for the AWS-API suite: DynamoDB, SQS, KMS, Cognito, Secrets Manager and Step
 * Functions all answer on its one endpoint, told apart by the request as AWS tells them apart.
 */
import { CreateTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { createTableInput } from '../../contract/table/table.js';

// Starting it is the local host's too (the AWS twin of `PLATFORM=ecs npm start`).
export { MOTO_MISSING, MotoMissingError, type RunningMoto, startMoto } from '../../local/aws-twin/moto-process.js';

/** The AWS_ENDPOINT_URL_* variables that send each service's SDK client to moto. */
export const motoEndpoints = (endpoint: string): Record<string, string> => ({
  AWS_ENDPOINT_URL_DYNAMODB: endpoint,
  AWS_ENDPOINT_URL_SQS: endpoint,
  AWS_ENDPOINT_URL_KMS: endpoint,
  AWS_ENDPOINT_URL_COGNITO_IDENTITY_PROVIDER: endpoint,
  AWS_ENDPOINT_URL_SECRETS_MANAGER: endpoint,
  AWS_ENDPOINT_URL_SFN: endpoint,
});

/** The table as the stack creates it (contract/table/table.ts), on moto's DynamoDB. */
export async function createMotoTable(endpoint: string, tableName: string): Promise<void> {
  const client = new DynamoDBClient({ endpoint, region: 'us-east-1', credentials: { accessKeyId: 'testing', secretAccessKey: 'testing' } });
  try {
    await client.send(new CreateTableCommand(createTableInput(tableName)));
  } finally {
    client.destroy();
  }
}
