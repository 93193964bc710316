/**
 * The Items table of docs/data-model.md, as the declarations in
 * contract/table/entities.ts and entity-docs.ts say it (test/unit/entities.test.ts compares the
 * two). `npx tsx test/helpers/data-model-table.ts` prints it, to paste after a change.
 */
import { pathToFileURL } from 'node:url';
import { ENTITIES } from '../../contract/table/entities.js';
import { ENTITY_DOCS } from '../../functions/adapters/dynamo/entity-docs.js';

const code = (text: string) => `\`${text}\``;

export function itemsTable(): string {
  const rows = ENTITIES.map((e) => {
    const indexes = e.allIndexes.map((i) => `${code(i.name)} (${i.physical}) ${code(i.pk.doc)} / ${code(i.sk.doc)}`).join('; ');
    const { description, attributes } = ENTITY_DOCS[e.name];
    const held = Object.entries(attributes).map(([name, what]) => `${code(name)}: ${what}`);
    return `| ${e.name} | ${code(e.pk.doc)} | ${code(e.sk.doc)} | ${indexes || '—'} | ${[description, ...held].join('; ')} |`;
  });
  return ['| item | pk | sk | named indexes | what it holds |', '| --- | --- | --- | --- | --- |', ...rows].join('\n');
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) console.log(itemsTable());
