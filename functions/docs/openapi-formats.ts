/**
 * Integer formats for the whole document: a generator picks a number type from `format`
 * (a 32-bit int, or a 64-bit one that JavaScript holds exactly up to 2^53), so every
 * integer says which it is. The format follows from the schema's own bounds: int32 when
 * both are within 32 bits, int64 otherwise (decision 161).
 */
const INT32_MIN = -(2 ** 31);
const INT32_MAX = 2 ** 31 - 1;

function formatOf(schema: { minimum?: unknown; maximum?: unknown }): 'int32' | 'int64' {
  const { minimum, maximum } = schema;
  return typeof minimum === 'number' && typeof maximum === 'number' && minimum >= INT32_MIN && maximum <= INT32_MAX ? 'int32' : 'int64';
}

/** Sets `format` on every integer schema of the document that has none. */
export function addIntegerFormats(node: unknown): void {
  if (Array.isArray(node)) {
    for (const item of node) addIntegerFormats(item);
    return;
  }
  if (!node || typeof node !== 'object') return;
  const schema = node as Record<string, unknown>;
  const integer = schema.type === 'integer' || (Array.isArray(schema.type) && schema.type.includes('integer'));
  if (integer && schema.format === undefined) schema.format = formatOf(schema);
  for (const value of Object.values(schema)) addIntegerFormats(value);
}
