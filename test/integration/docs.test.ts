/**
 * The interactive docs (decision 31): the page and its allow-listed assets through the
 * route table, then the real page in headless Chromium against the real local server:
 * every operation listed, Authorize with a key, "Try it out" on GET /environments.
 */
import type http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser } from 'playwright-core';
import { API_PREFIX, type Route, routes } from '../../contract/routes.js';
import { EVENT_TYPES } from '../../contract/vocabulary.js';
import { createApiServer } from '../../infra/local/api-server.js';
import { launchBrowser } from '../helpers/browser.js';
import { call, createKey } from '../helpers/fixtures.js';

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

describe('the docs page in headless Chromium', () => {
  let server: http.Server;
  let base: string;
  let browser: Browser;

  beforeAll(async () => {
    server = createApiServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    browser = await launchBrowser();
  });

  afterAll(async () => {
    await browser?.close();
    if (server) {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });

  it('lists every operation, and "Try it out" with an authorized key lists env_default', async () => {
    const { key } = await createKey();
    const page = await browser.newPage();
    page.setDefaultTimeout(15_000);
    const problems: string[] = [];
    page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
    page.on('console', (m) => {
      if (m.type() === 'error') problems.push(`console error: ${m.text()}`);
    });
    const external: string[] = [];
    page.on('request', (r) => {
      if (!r.url().startsWith(base) && !r.url().startsWith('data:')) external.push(r.url());
    });

    const res = await page.goto(`${base}${API_PREFIX}/docs`);
    expect(res?.status()).toBe(200);
    await page.locator('.opblock').first().waitFor();

    const listed = await page
      .locator('.opblock')
      .evaluateAll((blocks) =>
        blocks.map(
          (b) =>
            `${b.querySelector('.opblock-summary-method')?.textContent?.trim()} ${b.querySelector('.opblock-summary-path')?.getAttribute('data-path')}`,
        ),
      );
    const label = (r: Route) => `${r.method} ${API_PREFIX}${r.path}`;
    const all = Object.values(routes) as Route[];
    const expected = (Object.entries(routes) as [string, Route][])
      .filter(([id, r]) => r.summary && id !== 'getDocs' && id !== 'getDocsAsset')
      .map(([, r]) => label(r));
    expect(listed).toEqual(expect.arrayContaining(expected));
    // ...and nothing that is not a route (the docs routes themselves are listed too), or one of the webhooks we send.
    expect([...all.map(label), ...EVENT_TYPES.map((t) => `POST ${t}`)]).toEqual(expect.arrayContaining(listed));
    expect(listed).toEqual(expect.arrayContaining(EVENT_TYPES.map((t) => `POST ${t}`)));

    // Authorize: paste the key into the X-API-Key scheme.
    await page.locator('.auth-wrapper button.authorize').click();
    const modal = page.locator('.modal-ux');
    await modal.locator('input').first().fill(key);
    await modal.locator('.auth-btn-wrapper button.authorize').click();
    await modal.locator('button.btn-done').click();

    // Try it out on GET /environments.
    const op = page.locator('#operations-Organization-listEnvironments');
    await op.locator('.opblock-summary').first().click();
    await op.locator('button.try-out__btn').click();
    await op.locator('button.execute').click();
    const live = op.locator('.live-responses-table .response');
    await live.locator('.response-col_status').first().waitFor();
    expect((await live.locator('.response-col_status').first().textContent())?.trim()).toBe('200');
    const shown = await live.locator('.response-col_description').first().textContent();
    expect(shown).toContain('env_default');
    // The request Swagger UI shows went to this host, with the key.
    const curl = await op.locator('.curl-command').textContent();
    expect(curl).toContain(`${base}${API_PREFIX}/environments`);
    expect(curl).toContain('X-API-Key');

    expect(problems).toEqual([]);
    expect(external).toEqual([]);
    await page.close();
  });
});
