/** The API guide's list of a failed operation's error codes is the catalogue's; its endpoint table is the route table's. */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { OPERATION_ERRORS, phaseFailed } from '../../contract/errors.js';
import { API_PREFIX, type Route, routes } from '../../contract/routes.js';
import { PHASES } from '../../functions/core/operations.js';

const GUIDE = readFileSync(path.resolve(import.meta.dirname, '../../docs/api.md'), 'utf8');

/** The rows of the first table below a heading: each row's cells, without the header and its rule. */
function tableBelow(heading: string): string[][] {
  const lines = GUIDE.split('\n');
  const start = lines.findIndex((l) => l.startsWith('#') && l.includes(heading));
  if (start < 0) throw new Error(`docs/api.md has no heading "${heading}"`);
  const first = lines.findIndex((l, i) => i > start && l.startsWith('|'));
  const end = lines.findIndex((l, i) => i > first && !l.startsWith('|'));
  return lines.slice(first + 2, end).map((row) =>
    row
      .split(/(?<!\\)\|/)
      .slice(1, -1)
      .map((cell) => cell.trim()),
  );
}

describe('docs/api.md, error codes inside a failed operation', () => {
  it("lists exactly the catalogue's operation error codes, each with its meaning", () => {
    const listed = tableBelow('Error codes inside a failed operation').map(([code, meaning]) => [code?.replace(/^`|`$/g, ''), meaning]);
    expect(listed).toEqual(Object.entries(OPERATION_ERRORS));
  });

  it('gives as examples of <PHASE>_FAILED only codes of work phases', () => {
    const workPhaseCodes = new Set<string>(Object.values(PHASES).flatMap((p) => p.work.map(phaseFailed)));
    const examples = [...OPERATION_ERRORS['<PHASE>_FAILED'].matchAll(/`([A-Z_]+_FAILED)`/g)].map((m) => m[1]);
    expect(examples.length).toBeGreaterThan(0);
    expect(examples.filter((e) => !workPhaseCodes.has(e!))).toEqual([]);
  });
});

/** A route's row as the guide's endpoint table writes it. */
function endpointRow(route: Route): string[] {
  const { access } = route;
  const scope =
    access === 'public' ? 'public' : access === 'key' ? 'any valid key, no scope' : access.map((s) => `\`${s}\``).join(' **or** ');
  return [`\`${route.method} ${API_PREFIX}${route.path}\``, scope, String(route.success.status)];
}

describe('docs/api.md, the endpoint table', () => {
  it('has one row per route of contract/routes.ts, in its order, with its scopes and success status', () => {
    expect(tableBelow('6. Endpoints')).toEqual(Object.values(routes).map(endpointRow));
  });
});
