/**
 * Text as the command-line tools print it (deployctl and the operator CLIs): nothing from
 * the service reaches a terminal unescaped, and tables line up. Imports nothing.
 */

/**
 * Control characters (C0 but the line break, DEL, C1) and bidirectional overrides, which
 * a terminal obeys: escape sequences can move the cursor, rewrite earlier lines or plant
 * links, and text from the service (names, messages, URLs) may hold any of them.
 */
const UNPRINTABLE = /[\p{Cc}\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/gu;

/**
 * Text as a terminal may show it: each control character written as its `\uXXXX`
 * escape, visible and inert. Inside JSON output the escape means the same character,
 * so `--json` stays the same value.
 */
export const printable = (text: string): string =>
  text.replace(UNPRINTABLE, (c) => (c === '\n' ? c : `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`));

/** A value on one line: a line break in it would start a line that looks like the tool's own. */
export const oneLine = (text: string) => text.replaceAll('\n', '\\u000a');

/** The lines of a table (the first row is the header): columns as wide as their widest cell, two spaces apart, the last one unpadded. */
export function table(cells: string[][]): string[] {
  const rows = cells.map((r) => r.map((cell) => printable(oneLine(cell))));
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => (r[i] ?? '').length)));
  return rows.map((r) => r.map((cell, i) => (i === r.length - 1 ? cell : cell.padEnd(widths[i]!))).join('  '));
}
