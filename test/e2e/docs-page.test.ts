/**
 * The interactive docs (decision 31): the real page in headless Chromium against the real
 * local server: every operation listed, Authorize with a key, "Try it out" on
 * GET /environments. (test/integration/docs.test.ts checks the page and its assets.)
 */
import type http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser } from 'playwright-core';
import { API_PREFIX, type Route, routes } from '../../contract/routes.js';
import { EVENT_TYPES } from '../../contract/vocabulary.js';
import { createApiServer } from '../../local/api-server.js';
import { launchBrowser } from '../helpers/browser.js';
import { createKey } from '../helpers/fixtures.js';

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
