/** The repository explains itself: nothing in it points outside it, and the API guide is there. */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { openApiDocument } from '../../functions/docs/openapi-document.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
// Spelled in parts, so this file does not name it.
const OUTSIDE = ['..', 'shared'].join('/');
const tracked = execFileSync('git', ['ls-files', '-z'], { cwd: ROOT, encoding: 'utf8' }).split('\0').filter(Boolean);

describe('the repository', () => {
  it('has no file that refers to the shared folder beside it (a clone has nothing there)', () => {
    const outside = tracked.filter(
      (f) =>
        !f.endsWith('package-lock.json') && existsSync(path.join(ROOT, f)) && readFileSync(path.join(ROOT, f), 'utf8').includes(OUTSIDE),
    );
    expect(outside).toEqual([]);
  });

  it('has the API guide the README and the OpenAPI description send readers to', () => {
    const guide = readFileSync(path.join(ROOT, 'docs/api.md'), 'utf8');
    for (const heading of ['Authentication', 'Endpoints', 'Errors', 'Idempotency', 'Rate limits'])
      expect(guide).toMatch(new RegExp(`^#+ .*${heading}`, 'm'));
    expect(readFileSync(path.join(ROOT, 'README.md'), 'utf8')).toContain('(docs/api.md)');
    expect(openApiDocument().info.description).toContain('docs/api.md');
  });
});
