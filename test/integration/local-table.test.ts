/**
 * The local host keeps a table made by an older version usable: ensureTable adds the
 * indexes (and the stream) the table definition has gained since, without touching items.
 */
import { CreateTableCommand, DescribeTableCommand } from '@aws-sdk/client-dynamodb';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { createTableInput, INDEXES } from '../../contract/table/table.js';
import { ddb } from '../../functions/adapters/dynamo/client.js';
import { clientFor, ensureTable } from '../../local/dynamodb-local.js';

it('adds the indexes a table made before them lacks, keeping its items', async () => {
  const endpoint = process.env.AWS_ENDPOINT_URL_DYNAMODB!;
  const tableName = `deployments-old-${Date.now()}`;
  const current = createTableInput(tableName);
  const old = {
    ...current,
    GlobalSecondaryIndexes: current.GlobalSecondaryIndexes?.slice(0, 5),
    AttributeDefinitions: current.AttributeDefinitions?.filter((a) => !/^gsi[6-9]/.test(a.AttributeName ?? '')),
    StreamSpecification: undefined,
  };
  const client = clientFor(endpoint);
  try {
    await client.send(new CreateTableCommand(old));
    await ddb.send(new PutCommand({ TableName: tableName, Item: { pk: 'ORG#o', sk: 'ORG', kept: true } }));
    const warn = jest.spyOn(console, 'warn').mockImplementation(() => undefined);
    await ensureTable(endpoint, tableName);
    warn.mockRestore();
    const { Table } = await client.send(new DescribeTableCommand({ TableName: tableName }));
    expect(Table?.GlobalSecondaryIndexes?.map((i) => i.IndexName).sort()).toEqual(INDEXES.map((i) => i.name).sort());
    expect(Table?.StreamSpecification?.StreamEnabled).toBe(true);
    expect(Table?.ItemCount).toBe(1);
    // A second start finds nothing to add.
    await ensureTable(endpoint, tableName);
  } finally {
    client.destroy();
  }
});
