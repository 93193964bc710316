/**
 * The one table's definition, used by the CDK stack and by the local host to create
 * the same table in DynamoDB Local. Access patterns: docs/data-model.md.
 */

// The CreateTable request's shape, as much of it as this table uses: the SDK's own types
// stay in adapters (the contract imports nothing but zod); the SDK's checks it where it is sent.
interface KeySchemaElement {
  AttributeName: string;
  KeyType: 'HASH' | 'RANGE';
}
export interface CreateTableInput {
  TableName: string;
  BillingMode: 'PAY_PER_REQUEST';
  AttributeDefinitions: { AttributeName: string; AttributeType: 'S' }[];
  KeySchema: KeySchemaElement[];
  GlobalSecondaryIndexes: { IndexName: string; KeySchema: KeySchemaElement[]; Projection: { ProjectionType: 'ALL' } }[];
  StreamSpecification: typeof TABLE_STREAM;
}

export const TABLE_KEYS = { partitionKey: 'pk', sortKey: 'sk' } as const;

/** Items whose `ttl` (epoch seconds) has passed are deleted by DynamoDB. */
export const TTL_ATTRIBUTE = 'ttl';

export interface IndexDefinition {
  readonly name: string;
  readonly partitionKey: string;
  readonly sortKey: string;
}

/**
 * Generic, overloaded GSIs: several item types share each one, under names of their own
 * (entities.ts maps every named index to one of these; docs/data-model.md lists them).
 */
export const INDEXES: readonly IndexDefinition[] = [1, 2, 3, 4, 5, 6, 7, 8, 9].map((n) => ({
  name: `gsi${n}`,
  partitionKey: `gsi${n}pk`,
  sortKey: `gsi${n}sk`,
}));

export type PhysicalIndex = `gsi${1 | 2 | 3 | 4 | 5 | 6 | 7 | 8 | 9}`;

/**
 * The table as a CreateTable request: keys and index attributes are strings, every index
 * projects ALL, billing is on demand. The local host creates its table with it; the CDK
 * stack builds the same table (test/infra/stack.test.ts compares the two). TTL is set apart.
 */
/** The table's stream carries each new event item to the webhook dispatcher (decision 38). */
export const TABLE_STREAM = { StreamEnabled: true, StreamViewType: 'NEW_IMAGE' } as const;

export function createTableInput(tableName: string): CreateTableInput {
  const keySchema = (partitionKey: string, sortKey: string): KeySchemaElement[] => [
    { AttributeName: partitionKey, KeyType: 'HASH' },
    { AttributeName: sortKey, KeyType: 'RANGE' },
  ];
  const attributes = new Set<string>([TABLE_KEYS.partitionKey, TABLE_KEYS.sortKey, ...INDEXES.flatMap((i) => [i.partitionKey, i.sortKey])]);
  return {
    TableName: tableName,
    BillingMode: 'PAY_PER_REQUEST',
    AttributeDefinitions: [...attributes].map((name) => ({ AttributeName: name, AttributeType: 'S' })),
    KeySchema: keySchema(TABLE_KEYS.partitionKey, TABLE_KEYS.sortKey),
    GlobalSecondaryIndexes: INDEXES.map((i) => ({
      IndexName: i.name,
      KeySchema: keySchema(i.partitionKey, i.sortKey),
      Projection: { ProjectionType: 'ALL' },
    })),
    StreamSpecification: TABLE_STREAM,
  };
}
