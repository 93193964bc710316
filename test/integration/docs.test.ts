import { call } from '../helpers/fixtures.js';

describe('GET /api/v1/docs and its assets', () => {
  it('serves the page with no key, without any CDN, pointing at its own assets', async () => {
    const res = await call('GET', '/docs');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(res.headers['cache-control']).toBe('no-cache');
    expect(res.headers['content-security-policy']).toContain("script-src 'self'");
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    const html = res.body as string;
    expect(html).not.toMatch(/https?:\/\//);
    const refs = [...html.matchAll(/(?:href|src)="([^"]+)"/g)].map((m) => m[1]).filter((u) => u !== 'data:,');
    expect(refs).toEqual([
      expect.stringMatching(/^docs\/swagger-ui\.css\?v=[0-9a-f]{16}$/),
      expect.stringMatching(/^docs\/swagger-ui-bundle\.js\?v=[0-9a-f]{16}$/),
      expect.stringMatching(/^docs\/docs-init\.js\?v=[0-9a-f]{16}$/),
    ]);
    // With a trailing slash the same assets are one level closer.
    const slash = await call('GET', '/docs/');
    expect(slash.status).toBe(200);
    expect(slash.body).toContain('src="swagger-ui-bundle.js?v=');
  });

  it.each([
    ['swagger-ui.css', 'text/css; charset=utf-8'],
    ['swagger-ui-bundle.js', 'text/javascript; charset=utf-8'],
    ['docs-init.js', 'text/javascript; charset=utf-8'],
  ])('serves %s as %s, cacheable for good only at its current version', async (name, type) => {
    const page = (await call('GET', '/docs')).body as string;
    const version = new RegExp(`${name.replace(/\./g, '\\.')}\\?v=([0-9a-f]+)`).exec(page)![1];
    const current = await call('GET', `/docs/${name}?v=${version}`);
    expect(current.status).toBe(200);
    expect(current.headers['content-type']).toBe(type);
    expect(current.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect((current.body as string).length).toBeGreaterThan(100);
    const unversioned = await call('GET', `/docs/${name}`);
    expect(unversioned.headers['cache-control']).toBe('public, max-age=300');
  });

  it('loads the document from next to the page', async () => {
    const init = (await call('GET', '/docs/docs-init.js')).body as string;
    expect(init).toContain("base + '/openapi.json'");
    expect(init).toContain('validatorUrl: null');
  });

  it.each([
    'index.html',
    'swagger-initializer.js',
    'package.json',
    '..%2Fpackage.json',
    '..%2F..%2Ffunctions%2Froutes.ts',
    '__proto__',
    'constructor',
    'swagger-ui.css.map',
  ])('answers 404 NOT_FOUND for %s, which is not on the allow-list', async (name) => {
    const res = await call('GET', `/docs/${name}`);
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe('NOT_FOUND');
    expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
  });
});
