/**
 * docs/changelog.md says what is deprecated exactly as core/deprecations.ts declares it
 * (decision 44): each feature's section, its dates and the headers its callers see.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { DEPRECATIONS, type Deprecation } from '../../functions/core/deprecations.js';
import { deprecationHeaders } from '../../functions/middleware/deprecation-notice.js';

const changelog = readFileSync(path.resolve(import.meta.dirname, '../../docs/changelog.md'), 'utf8');

/** The section a deprecation has in the changelog. */
function section(d: Deprecation): string {
  const h = deprecationHeaders(d);
  return [
    `### Deprecated: ${d.feature} {#${d.id}}`,
    '',
    `- Deprecated on ${d.since}: answers carry \`Deprecation: ${h.Deprecation}\` and \`Link: ${h.Link}\`.`,
    `- Sunset on ${d.sunset}: answers carry \`Sunset: ${h.Sunset}\`; after that day it may stop working.`,
    `- Instead: ${d.instead}`,
  ].join('\n');
}

describe('docs/changelog.md', () => {
  it.each(DEPRECATIONS.map((d) => [d.id, d] as const))('has the section of %s as declared', (_, d) => {
    expect(changelog).toContain(section(d));
  });

  it('gives the exact header values of decision 44', () => {
    expect(deprecationHeaders(DEPRECATIONS[0]!)).toEqual({
      Deprecation: '@1795478400',
      Sunset: 'Wed, 24 Nov 2027 00:00:00 GMT',
      Link: '</api/v1/docs#deprecations>; rel="deprecation"',
    });
  });

  it('names no deprecation the declaration lacks', () => {
    expect(changelog.match(/^### Deprecated: /gm)).toHaveLength(DEPRECATIONS.length);
  });
});
