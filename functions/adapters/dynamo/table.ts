/**
 * The one table's definition, used by the CDK stack and by the local host to create
 * the same table in DynamoDB Local. Access patterns: docs/data-model.md.
 */
export const TABLE_KEYS = { partitionKey: 'pk', sortKey: 'sk' } as const;

/** Items whose `ttl` (epoch seconds) has passed are deleted by DynamoDB. */
export const TTL_ATTRIBUTE = 'ttl';

export interface IndexDefinition {
  readonly name: string;
  readonly partitionKey: string;
  readonly sortKey: string;
}

/** Generic, overloaded GSIs: each item type decides what it puts in them (see docs/data-model.md). */
export const INDEXES: readonly IndexDefinition[] = [1, 2, 3, 4, 5].map((n) => ({
  name: `gsi${n}`,
  partitionKey: `gsi${n}pk`,
  sortKey: `gsi${n}sk`,
}));

export type IndexName = `gsi${1 | 2 | 3 | 4 | 5}`;
