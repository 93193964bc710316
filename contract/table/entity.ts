/**
 * How an item type of the table is declared (entities.ts holds the declarations): its key
 * templates, its attributes and its named indexes, each mapped once to a physical index of
 * table.ts. Builders, reads, the stack's grants and docs/data-model.md derive from them.
 *
 * A template is text with `{attribute}` placeholders. A number is written zero-padded to 12
 * digits, so that string order is numeric order; a string is written as it is. In a
 * partition key a value may not hold `#`, which would address another partition (the stack
 * grants each function only the partitions its code touches, by prefix); `{name*}` takes a
 * whole partition key of another item (the status counts of a list) and is not checked.
 */
import type { PhysicalIndex } from './table.js';

type Values = Readonly<Record<string, unknown>>;

/** Sequence numbers are zero-padded so that string order is numeric order. */
export const seqKey = (n: number): string => String(n).padStart(12, '0');

const PLACEHOLDER = /\{(\w+)(\*?)\}/g;

export class KeyTemplate {
  constructor(
    readonly text: string,
    private readonly partition: boolean,
  ) {}

  /** The key for these values; every placeholder must have one. */
  build(values: Values): string {
    return this.text.replace(PLACEHOLDER, (_, name: string, whole: string) => {
      const value = values[name];
      if (typeof value === 'number') return seqKey(value);
      if (typeof value !== 'string') throw new Error(`key ${this.text}: no value for {${name}}`);
      if (this.partition && !whole && value.includes('#'))
        throw new Error(`an id in a table key contains "#": ${JSON.stringify(value.slice(0, 80))}`);
      return value;
    });
  }

  /** The attribute names the template reads. */
  get fields(): string[] {
    return [...this.text.matchAll(PLACEHOLDER)].map((m) => m[1]!);
  }

  /** How docs/data-model.md writes it: `ORG#<org_id>`. */
  get doc(): string {
    return this.text.replace(PLACEHOLDER, '<$1>');
  }

  /** The IAM `dynamodb:LeadingKeys` pattern of every key it builds: `ORG#*#KEYS`. */
  get pattern(): string {
    return this.text.replace(PLACEHOLDER, '*');
  }
}

export interface IndexDeclaration {
  /** The physical index it lives in (table.ts): several item types share each one. */
  readonly physical: PhysicalIndex;
  readonly pk: string;
  readonly sk: string;
  /** A sparse index: the item is in it only while this holds. */
  readonly when?: (values: Values) => boolean;
  /**
   * A dense list (positions 1..n, `sk` one number): the index of its members in one
   * status, whose partition moves with the status, counted per bucket (status-counts.ts).
   */
  readonly byStatus?: string;
}

export class NamedIndex {
  readonly pk: KeyTemplate;
  readonly sk: KeyTemplate;
  /** The physical index's key attributes (`gsi4pk`, `gsi4sk`). */
  readonly pkAttr: string;
  readonly skAttr: string;

  constructor(
    readonly name: string,
    readonly declaration: IndexDeclaration,
  ) {
    this.pk = new KeyTemplate(declaration.pk, true);
    this.sk = new KeyTemplate(declaration.sk, false);
    this.pkAttr = `${declaration.physical}pk`;
    this.skAttr = `${declaration.physical}sk`;
  }

  get physical(): PhysicalIndex {
    return this.declaration.physical;
  }

  /** The index's key attributes for an item with these values ({} when a sparse index leaves it out). */
  keys(values: Values): Record<string, string> {
    if (this.declaration.when && !this.declaration.when(values)) return {};
    return { [this.pkAttr]: this.pk.build(values), [this.skAttr]: this.sk.build(values) };
  }
}

export interface EntityDeclaration<I extends string> {
  readonly pk: string;
  readonly sk: string;
  readonly indexes?: Readonly<Record<I, IndexDeclaration>>;
}

export class Entity<I extends string = never, N extends string = string> {
  readonly pk: KeyTemplate;
  readonly sk: KeyTemplate;
  readonly indexes: Readonly<Record<I, NamedIndex>>;

  constructor(
    readonly name: N,
    readonly declaration: EntityDeclaration<I>,
  ) {
    this.pk = new KeyTemplate(declaration.pk, true);
    this.sk = new KeyTemplate(declaration.sk, false);
    const declared = (declaration.indexes ?? {}) as Record<I, IndexDeclaration>;
    this.indexes = Object.fromEntries(Object.entries<IndexDeclaration>(declared).map(([n, d]) => [n, new NamedIndex(n, d)])) as Record<
      I,
      NamedIndex
    >;
  }

  /** The item's primary key. */
  key(values: Values): { pk: string; sk: string } {
    return { pk: this.pk.build(values), sk: this.sk.build(values) };
  }

  /** Every index key attribute of an item with these values. */
  indexKeys(values: Values): Record<string, string> {
    return Object.assign({}, ...this.allIndexes.map((i) => i.keys(values)));
  }

  get allIndexes(): NamedIndex[] {
    return Object.values<NamedIndex>(this.indexes);
  }

  /** The index of a dense list's members in one status. */
  statusIndexOf(list: NamedIndex): NamedIndex {
    const name = list.declaration.byStatus;
    const index = name === undefined ? undefined : (this.indexes as Record<string, NamedIndex>)[name];
    if (!index) throw new Error(`${this.name}.${list.name} is not a dense list with a status index`);
    return index;
  }

  /** The status indexes' partition keys of an item in `status` (they move with it). */
  statusIndexKeys(values: Values, status: string): Record<string, string> {
    const moved = { ...values, status };
    return Object.fromEntries(this.denseLists.map((l) => this.statusIndexOf(l)).map((i) => [i.pkAttr, i.pk.build(moved)]));
  }

  /** The dense lists the item is in (each counted by status), with its position in each. */
  countedIn(values: Values): [list: string, position: number][] {
    return this.denseLists.map((l) => {
      const position = values[l.sk.fields[0]!];
      if (typeof position !== 'number') throw new Error(`${this.name} ${String(values.id)} has no position in ${l.name}`);
      return [l.pk.build(values), position];
    });
  }

  private get denseLists(): NamedIndex[] {
    return this.allIndexes.filter((i) => i.declaration.byStatus !== undefined);
  }
}

export const entity = <const N extends string, I extends string = never>(name: N, declaration: EntityDeclaration<I>): Entity<I, N> =>
  new Entity(name, declaration);
