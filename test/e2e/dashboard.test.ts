/**
 * The dashboard end to end, in headless Chromium against `npm start` as a user runs it:
 * users made with the users CLI sign in through the emulated Cognito user pool, an admin
 * makes, copies, watches and revokes a key that the public API then refuses, a viewer
 * only reads, another organization sees nothing, and an expired token is refused by the
 * API while the app refreshes it, sign-out revokes the refresh token, and a foreign Host
 * is refused. An admin manages a deployment from the dashboard (create, edit with a
 * dry-run diff, a failed update on a second stack whose platform fails, rollback,
 * destroy) and hibernates, schedules and wakes one, while a viewer may only look; at
 * 1280 px no table scrolls sideways. With
 * UPDATE_SCREENSHOTS=1 it also writes the screenshots in docs/screenshots.
 */
import { randomUUID } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { deploymentKey } from '../../contract/table/entities.js';
import { LOCAL_TABLE_NAME } from '../../local/env.js';
import { LOCAL_CLIENT_ID } from '../../local/user-pool.js';
import { launchBrowser } from '../helpers/browser.js';
import { freePort, type LocalProcess, npmScript, startNpm } from '../helpers/local-process.js';

jest.setTimeout(180_000);

const PASSWORD = 'Dashboard-test-1';
const TOKEN_SECONDS = 6;
const SHOTS = process.env.UPDATE_SCREENSHOTS
  ? path.resolve(import.meta.dirname, '../../docs/screenshots')
  : mkdtempSync(path.join(os.tmpdir(), 'dm-shots-'));

let dataDir: string;
let env: Record<string, string>;
let stack: LocalProcess | undefined;
let browser: Browser;
let origin: string;
/** What the admin's test leaves for the others: the key's id and the deployment's operation. */
const made: { keyId?: string; operationId?: string; deploymentId?: string } = {};

async function publicApi(method: string, p: string, headers: Record<string, string>, body?: unknown) {
  const res = await fetch(`${stack!.baseUrl}${p}`, {
    method,
    headers: { ...headers, ...(body ? { 'Content-Type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  return { status: res.status, body: (await res.json()) as any };
}

async function dashboardApi(method: string, p: string, token: string, body?: unknown) {
  const res = await fetch(`${origin}/dashboard/api${p}`, {
    method,
    headers: { Authorization: `Bearer ${token}`, ...(body ? { 'Content-Type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  return { status: res.status, body: (await res.json()) as any };
}

/** A deployment as the dashboard API answers it, read with the page's own token. */
async function deploymentAs(page: Page, deploymentId: string): Promise<any> {
  // The deployment page polls every few seconds: its next call carries a fresh token.
  const token = nextToken(page);
  return (await dashboardApi('GET', `/deployments/${deploymentId}`, await token)).body.data;
}

/** The bearer token of the page's next dashboard API call. */
function nextToken(page: Page): Promise<string> {
  return page
    .waitForRequest((r) => r.url().includes('/dashboard/api/'))
    .then((r) => (r.headers().authorization ?? '').replace(/^Bearer /, ''));
}

async function signedIn(
  email: string,
  options: Parameters<Browser['newContext']>[0] = {},
  at = origin,
): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext(options);
  const page = await context.newPage();
  await page.goto(`${at}/dashboard/`);
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(PASSWORD);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { name: 'API keys' }).waitFor();
  return { context, page };
}

/** Every table of the page fits its container: nothing to scroll sideways. The tables that do not, by their caption. */
async function overflowingTables(page: Page): Promise<string[]> {
  await page.locator('.table-wrap').first().waitFor();
  return page.$$eval('.table-wrap', (wraps) =>
    wraps.filter((w) => w.scrollWidth > w.clientWidth).map((w) => w.querySelector('caption')?.textContent ?? '(no caption)'),
  );
}

/** On a phone: nothing on the page is wider than the screen, and no table scrolls inside its panel (rows are cards). */
async function fitsPhone(page: Page): Promise<{ pageScrolls: boolean; tables: string[] }> {
  // After a resize the charts redraw at the new width a moment later: measured once it settles (5 s at most).
  await page
    .waitForFunction(() => document.documentElement.scrollWidth <= window.innerWidth, undefined, { timeout: 5000 })
    .catch(() => undefined);
  const pageScrolls = await page.evaluate(() => document.documentElement.scrollWidth > window.innerWidth);
  return { pageScrolls, tables: await overflowingTables(page) };
}

/**
 * Makes a deployment look as if it had run for `days` (its ready_at moved back, in the stack's
 * DynamoDB Local with the stack's own credentials): the simulated metrics then fill the
 * charts' ranges, as they would for a deployment that has been up for a while.
 */
async function backdateReady(orgId: string, deploymentId: string, days: number): Promise<void> {
  const file = JSON.parse(readFileSync(path.join(dataDir, 'stack.json'), 'utf8'));
  const client = new DynamoDBClient({
    endpoint: file.dynamodb_endpoint,
    region: 'us-east-1',
    credentials: { accessKeyId: file.credentials.access_key_id, secretAccessKey: file.credentials.secret_access_key },
  });
  await DynamoDBDocumentClient.from(client).send(
    new UpdateCommand({
      TableName: LOCAL_TABLE_NAME,
      Key: deploymentKey(orgId, deploymentId),
      UpdateExpression: 'SET ready_at = :at',
      ExpressionAttributeValues: { ':at': new Date(Date.now() - days * 86_400_000).toISOString() },
    }),
  );
  client.destroy();
}

/** Picks a range of the metrics charts; the metrics request it makes, and its answer's period. */
async function pickRange(page: Page, label: string): Promise<{ start: number; period: number }> {
  const answer = page.waitForResponse((r) => r.url().includes('/dashboard/api/deployments/') && r.url().includes('/metrics'));
  await page.getByRole('group', { name: 'Time range' }).getByLabel(label).check();
  const res = await answer;
  const start = Date.parse(new URL(res.url()).searchParams.get('start') ?? '');
  return { start, period: ((await res.json()) as any).data.period };
}

const shot = (page: Page, name: string) => page.screenshot({ path: path.join(SHOTS, `${name}.png`), fullPage: true });

beforeAll(async () => {
  mkdirSync(SHOTS, { recursive: true });
  dataDir = mkdtempSync(path.join(os.tmpdir(), 'dm-dash-'));
  env = {
    PORT: String(await freePort()),
    DYNAMODB_PORT: String(await freePort()),
    DATA_DIR: dataDir,
    PHASE_DELAY_MS: '4000',
    // The DAG sync of the failure the operation page explains.
    SIMULATED_FAILURE: 'syncing_dags',
    DASHBOARD_TOKEN_SECONDS: String(TOKEN_SECONDS),
  };
  stack = await startNpm(env);
  origin = new URL(stack.baseUrl).origin;
  for (const [email, org, role] of [
    ['admin@acme.test', 'acme', 'admin'],
    ['viewer@acme.test', 'acme', 'viewer'],
    ['admin@globex.test', 'globex', 'admin'],
  ]) {
    const r = npmScript('users', ['create', '--org', org!, '--email', email!, '--role', role!, '--password', PASSWORD, '--json'], env);
    expect({ status: r.status, stderr: r.stderr }).toEqual({ status: 0, stderr: '' });
    expect(JSON.parse(r.stdout)).toEqual({ email, org_id: org, role });
  }
  browser = await launchBrowser();
});

afterAll(async () => {
  await browser?.close();
  if (stack) await stack.stop().catch(() => stack!.kill());
  rmSync(dataDir, { recursive: true, force: true });
  if (!process.env.UPDATE_SCREENSHOTS) rmSync(SHOTS, { recursive: true, force: true });
});

describe('the dashboard, against npm start', () => {
  it('lets an admin create a key, copy it, see its use in the usage log, watch a deployment, and revoke the key', async () => {
    const { context, page } = await signedIn('admin@acme.test');
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin });
    await page.getByText('admin@acme.test').waitFor();

    await page.getByLabel('Name').fill('ci-pipeline');
    for (const scope of ['deployments:read', 'deployments:write', 'operations:read', 'org:read']) await page.getByLabel(scope).check();
    await page.getByRole('button', { name: 'Create key' }).click();
    const shown = await page.getByLabel('New API key').inputValue();
    expect(shown).toMatch(/^svc_sk_live_[0-9A-Za-z]{51}$/);
    await page.getByRole('button', { name: 'Copy' }).click();
    await page.getByText('Copied to the clipboard.').waitFor();
    const key = await page.evaluate(() => navigator.clipboard.readText());
    expect(key).toBe(shown);
    await shot(page, 'key-created');

    // The copied key works on the public API, with the scopes ticked and no other.
    const created = await publicApi('POST', '/deployments', { 'X-API-Key': key }, { app_type: 'airflow', name: 'etl' });
    expect(created.status).toBe(202);
    made.operationId = created.body.data.operation_id;
    const me = await publicApi('GET', '/key', { 'X-API-Key': key });
    expect(me.status).toBe(200);
    expect(me.body.data.scopes).toEqual(['deployments:read', 'deployments:write', 'operations:read', 'org:read']);
    made.keyId = me.body.data.id;

    // Shown once: after Done, the list has only the hint.
    await page.getByRole('button', { name: 'Done' }).click();
    const row = page.locator(`tr[data-key-id="${made.keyId}"]`);
    await row.getByText(`svc_sk_live_…${key.slice(-4)}`).waitFor();
    expect(await page.content()).not.toContain(key);
    expect(await overflowingTables(page)).toEqual([]);
    await shot(page, 'api-keys');

    // The usage log, newest first, follows new requests; the status filter keeps one code.
    await row.getByRole('link', { name: 'ci-pipeline' }).click();
    await page.getByRole('heading', { name: /Usage of ci-pipeline/ }).waitFor();
    await page.getByRole('cell', { name: 'GET /api/v1/key', exact: true }).waitFor({ timeout: 15_000 });
    // The path each request named, its client's address and how long it took.
    const requests = await page.locator('tbody tr td:nth-child(2)').allInnerTexts();
    expect(requests).toEqual(['GET /api/v1/key', 'POST /api/v1/deployments']);
    expect(await page.locator('tbody tr td:nth-child(5)').allInnerTexts()).toEqual(
      requests.map(() => expect.stringMatching(/^(127\.0\.0\.1|::1|::ffff:127\.0\.0\.1)$/)),
    );
    // A duration where the entry was settled after the answer; these two answered as their routes succeed (decision 145).
    expect(await page.locator('tbody tr td:nth-child(4)').allInnerTexts()).toEqual(
      requests.map(() => expect.stringMatching(/^(—|.* m?s)$/)),
    );
    expect(await overflowingTables(page)).toEqual([]);
    await shot(page, 'key-usage');
    await page.getByLabel('Status code').fill('202');
    await page.getByRole('button', { name: 'Filter' }).click();
    await page.getByRole('cell', { name: 'GET /api/v1/key', exact: true }).waitFor({ state: 'detached' });
    expect(await page.locator('tbody tr td:nth-child(3)').allInnerTexts()).toEqual(['202']);

    // Deployments: the phase of the running operation, updated live, then the operation's timeline.
    await page.getByRole('link', { name: 'Deployments' }).click();
    const deployment = page.locator('tr[data-deployment-id]', { hasText: 'etl' });
    await deployment.getByRole('link', { name: /provisioning_(db|infrastructure)/ }).waitFor({ timeout: 15_000 });
    expect(await overflowingTables(page)).toEqual([]);
    await shot(page, 'deployments');
    await deployment.locator('.badge', { hasText: 'ready' }).waitFor({ timeout: 30_000 });
    expect(await deployment.innerText()).toContain('https://airflow.');
    // Once it is over, the operation's phase is no longer shown in the list.
    expect(await deployment.locator('a.phase').count()).toBe(0);
    await deployment.getByRole('link', { name: 'etl' }).click();
    await page.getByRole('heading', { name: 'Deployment etl' }).waitFor();
    await page.locator(`tr[data-operation-id="${made.operationId}"]`).getByRole('link', { name: 'deployment.create' }).click();
    await page.getByRole('heading', { name: /Operation op_/ }).waitFor();
    await page.getByRole('link', { name: '← Its deployment' }).waitFor();
    await page.locator('.facts .badge', { hasText: 'succeeded' }).waitFor();
    const timeline = await page.locator('.timeline li').allInnerTexts();
    expect(timeline.map((t) => t.split(' — ')[0]!.replace(/^.*?(queued|running|succeeded)/, '$1'))).toEqual([
      // The phase is not said again when it is the status's own name (it read "queued queued").
      'queued',
      'running provisioning_db',
      'running provisioning_infrastructure',
      'succeeded ready',
    ]);
    // Its log: a line per phase entered, the platform's lines between them (decision 45).
    await page.getByTestId('operation-log').getByText('The deployment is ready.').waitFor();

    // A failure explained (SIMULATED_FAILURE=syncing_dags): its phase, the retry hint, and its log ending with the error.
    const depId = await deployment.getAttribute('data-deployment-id').catch(() => null);
    const etl = depId ?? (await publicApi('GET', '/deployments', { 'X-API-Key': key })).body.data.items[0].id;
    const sync = await publicApi('POST', `/deployments/${etl}/dag-syncs`, { 'X-API-Key': key }, {});
    expect(sync.status).toBe(202);
    await page.goto(`${origin}/dashboard/#/operations/${sync.body.data.operation_id}`);
    await page.locator('.facts .badge', { hasText: 'failed' }).waitFor({ timeout: 30_000 });
    expect(await page.getByTestId('error-phase').innerText()).toBe('syncing_dags');
    expect(await page.getByTestId('error-retryable').innerText()).toBe('Sending the same request again will fail the same way.');
    const log = page.getByTestId('operation-log').locator('li');
    await log
      .last()
      .getByText(/Simulated failure in phase syncing_dags/)
      .waitFor();
    expect(await log.last().locator('.badge').innerText()).toBe('error');
    expect(await log.first().innerText()).toContain('Synchronising DAGs.');
    await shot(page, 'operation');

    // Revoke, after a confirmation; the public API refuses the key at once.
    await page.getByRole('link', { name: 'API keys' }).click();
    await page.getByRole('button', { name: 'Revoke ci-pipeline' }).click();
    const dialog = page.getByRole('dialog', { name: 'Revoke “ci-pipeline”?' });
    await dialog.waitFor();
    await shot(page, 'revoke');
    await dialog.getByRole('button', { name: 'Revoke key' }).click();
    await row.locator('.badge', { hasText: 'revoked' }).waitFor();
    const refused = await publicApi('GET', '/key', { 'X-API-Key': key });
    expect(refused.status).toBe(401);
    expect(refused.body.error.code).toBe('API_KEY_REVOKED');
    await context.close();
  });

  it('lets an admin rotate a key: a grace period chosen, the new key shown once, both working, the old one marked in its usage log', async () => {
    const { context, page } = await signedIn('admin@acme.test', { viewport: { width: 1280, height: 900 } });
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin });
    await page.getByLabel('Name').fill('deployer');
    await page.getByRole('button', { name: 'Create key' }).click();
    const oldKey = await page.getByLabel('New API key').inputValue();
    await page.getByRole('button', { name: 'Done' }).click();
    const oldId = (await publicApi('GET', '/key', { 'X-API-Key': oldKey })).body.data.id as string;

    // Confirmed like revoke, with the grace period to choose; Cancel changes nothing.
    await page.getByRole('button', { name: 'Rotate deployer' }).click();
    const dialog = page.getByRole('dialog', { name: 'Rotate “deployer”?' });
    await dialog.waitFor();
    expect(await dialog.getByLabel('Old key keeps working for').inputValue()).toBe('86400');
    await dialog.getByLabel('Old key keeps working for').selectOption('3600');
    await shot(page, 'rotate');
    // The same dialog on a phone (390 px wide).
    await page.setViewportSize({ width: 390, height: 844 });
    await dialog.getByRole('button', { name: 'Rotate key' }).waitFor();
    await shot(page, 'rotate-phone');
    await page.setViewportSize({ width: 1280, height: 900 });

    const before = Date.now();
    await dialog.getByRole('button', { name: 'Rotate key' }).click();
    await page.getByRole('heading', { name: 'Key “deployer” rotated' }).waitFor();
    const newKey = await page.getByLabel('New API key').inputValue();
    await page.getByRole('button', { name: 'Copy' }).click();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(newKey);
    await shot(page, 'key-rotated');
    await page.getByRole('button', { name: 'Done' }).click();
    expect(await page.content()).not.toContain(newKey);
    // The old key's row says it was rotated, to which key, and that it is expiring; it offers no second rotation.
    const oldRow = page.locator(`tr[data-key-id="${oldId}"]`);
    await oldRow.getByText('rotated').waitFor();
    expect(await oldRow.innerText()).toMatch(/rotated\s+→\s+\S+, expiring/);
    expect(await oldRow.getByRole('button', { name: /^Rotate/ }).count()).toBe(0);

    // Both keys work; the old one until the hour's end, as its row and its usage page say.
    const [oldMe, newMe] = [
      await publicApi('GET', '/key', { 'X-API-Key': oldKey }),
      await publicApi('GET', '/key', { 'X-API-Key': newKey }),
    ];
    expect([oldMe.status, newMe.status]).toEqual([200, 200]);
    expect(Date.parse(oldMe.body.data.expires_at) - before).toBeGreaterThanOrEqual(3_600_000);
    expect(Date.parse(oldMe.body.data.expires_at) - Date.now()).toBeLessThanOrEqual(3_600_000);
    expect(newMe.body.data).toMatchObject({ name: 'deployer', expires_at: null });
    expect(await page.locator('tbody tr', { hasText: 'deployer' }).count()).toBe(2);

    // The old key's caller still uses a deprecated form: its usage log marks the request.
    const deprecated = await fetch(`${stack!.baseUrl}/operations?resource_id=dep_${randomUUID()}`, { headers: { 'X-API-Key': oldKey } });
    expect(deprecated.headers.get('deprecation')).toBe('@1795478400');
    await page.locator(`tr[data-key-id="${oldId}"]`).getByRole('link', { name: 'deployer' }).click();
    await page.getByText(/^Works until /).waitFor();
    const marked = page.locator('tbody tr', { hasText: '/api/v1/operations' });
    await marked.locator('.badge.deprecated').waitFor({ timeout: 15_000 });
    expect(await page.locator('tbody tr', { hasText: '/api/v1/key' }).locator('.badge.deprecated').count()).toBe(0);
    await shot(page, 'key-usage-deprecated');
    await context.close();
  });

  it('lets an admin create a deployment, edit it after a dry-run diff, roll it back and destroy it, with every table fitting at 1280 px', async () => {
    const { context, page } = await signedIn('admin@acme.test', { viewport: { width: 1280, height: 900 } });
    await page.getByRole('link', { name: 'Deployments' }).click();
    await page.getByRole('button', { name: 'New deployment' }).click();
    await page.getByLabel('Name (optional)').fill('web');
    await page.getByLabel('App', { exact: true }).selectOption('airflow');
    await page.getByLabel('Size').selectOption('small');
    await page.getByRole('button', { name: 'Create deployment' }).click();
    await page.getByRole('heading', { name: 'Deployment web' }).waitFor();
    made.deploymentId = decodeURIComponent(new URL(page.url()).hash.split('/').pop()!);
    const facts = page.locator('.facts');
    await facts.locator('.badge', { hasText: 'ready' }).waitFor({ timeout: 60_000 });
    expect(await facts.innerText()).toContain('https://airflow.');
    // Times carry their time zone (the browser's, UTC here).
    expect(await facts.innerText()).toMatch(/Created\s+\w{3} \d{1,2}, \d{4}, \d{1,2}:\d{2}:\d{2}\s?[AP]M UTC/);

    // Edit: the form's changes are first a dry run, shown as a diff; nothing changes until Apply.
    await page.getByRole('button', { name: 'Edit configuration' }).click();
    // The app version is chosen from the supported releases, not typed.
    expect(await page.getByLabel('App version').evaluate((e) => e.tagName)).toBe('SELECT');
    expect(await page.getByLabel('App version').locator('option').allInnerTexts()).toEqual(
      expect.arrayContaining(['2.11.0', '3.0.6', '3.1.3 (current)']),
    );
    await page.getByLabel('Size').selectOption('medium');
    await page.getByRole('button', { name: 'Add variable' }).click();
    await page.getByLabel('Variable name').last().fill('LOG_LEVEL');
    await page.getByLabel('Value of LOG_LEVEL').fill('debug');
    await page.getByRole('button', { name: 'Add variable' }).click();
    await page.getByLabel('Variable name').last().fill('API_TOKEN');
    await page.getByLabel('Value of API_TOKEN').fill('tok-never-shown-123');
    await page.locator('[data-env="API_TOKEN"]').getByLabel('secret').check();
    await page.getByRole('button', { name: 'Review changes' }).click();
    const diff = page.locator('table.diff');
    await diff.waitFor();
    expect(await diff.locator('tbody tr').allInnerTexts()).toEqual([
      expect.stringMatching(/^config\.env\.API_TOKEN\s+\(none\)\s+secret$/),
      expect.stringMatching(/^config\.env\.LOG_LEVEL\s+\(none\)\s+debug$/),
      expect.stringMatching(/^config\.size\s+small\s+medium$/),
    ]);
    expect(await page.content()).not.toContain('tok-never-shown-123');
    expect(await overflowingTables(page)).toEqual([]);
    await shot(page, 'deployment-edit');
    await page.getByRole('button', { name: 'Apply changes' }).click();
    const following = page.getByRole('region', { name: 'Operation in progress' });
    await following.getByText('deployment.update').waitFor();
    await following.locator('.badge', { hasText: 'succeeded' }).waitFor({ timeout: 60_000 });
    await facts.getByText(/^2, applied/).waitFor();
    await page.locator('tr[data-revision="2"]').waitFor();
    expect(await page.getByRole('cell', { name: 'secret, not shown' }).count()).toBe(1);
    // Its events say what changed, from each event's previous values, not only their type.
    await page.locator('.timeline li', { hasText: 'size small → medium' }).first().waitFor({ timeout: 15_000 });
    expect(await page.locator('.timeline li', { hasText: 'env +API_TOKEN +LOG_LEVEL' }).count()).toBeGreaterThan(0);
    // A closed dialog's name is never "revision undefined".
    expect(await page.locator('dialog[aria-label*="undefined"]').count()).toBe(0);
    expect(await page.content()).not.toContain('tok-never-shown-123');

    // Its health, component by component (decision 48), in the app type's order.
    const components = page.getByRole('table', { name: 'Health of each component' });
    await components.locator('tr[data-component]').first().waitFor();
    expect(await components.locator('tbody tr').allInnerTexts()).toEqual(
      ['webserver', 'scheduler', 'dag_processor', 'triggerer', 'metadata_db'].map((n) =>
        expect.stringMatching(new RegExp(`^${n}\\s+healthy\\s+.*UTC\\s+—$`)),
      ),
    );
    // Its metrics (decision 49) as four charts of the five metrics, each a figure whose caption says
    // what it shows in words; the chart code is a module of its own, loaded with the first chart.
    await backdateReady('acme', made.deploymentId, 8);
    const figures = page.locator('figure.metric');
    expect(await pickRange(page, 'Last week')).toEqual({ start: expect.closeTo(Date.now() - 7 * 86_400_000, -5), period: 3600 });
    await page.locator('figure.metric canvas').nth(3).waitFor();
    expect(await figures.locator('figcaption strong').allInnerTexts()).toEqual([
      'CPU utilization',
      'Memory utilization',
      'HTTP requests and 5xx errors per hour',
      'Response time, 95th percentile',
    ]);
    for (const summary of await figures.locator('.summary').allInnerTexts())
      expect(summary).toMatch(/^\w.*: latest [\d.,]+( %| ms| s)?, lowest .*, highest .* over the last week\.$/);
    expect(await page.locator('figure.metric .chart[aria-hidden="true"]').count()).toBe(4);
    expect(await page.evaluate(() => performance.getEntriesByType('resource').some((e) => /\/uplot-chart-\w+\.js$/.test(e.name)))).toBe(
      true,
    );
    expect(await overflowingTables(page)).toEqual([]);
    await shot(page, 'deployment');
    await page.setViewportSize({ width: 390, height: 844 });
    expect(await fitsPhone(page)).toEqual({ pageScrolls: false, tables: [] });
    // Each cell is labelled with its column on the card its row becomes.
    expect(await page.locator('tr[data-revision="2"] td').first().getAttribute('data-label')).toBe('Applied');
    // The charts follow the phone's width: redrawn one a row, each inside the screen.
    await page.waitForFunction(() =>
      [...document.querySelectorAll('figure.metric canvas')].every((c) => c.getBoundingClientRect().right <= window.innerWidth - 8),
    );
    await shot(page, 'deployment-phone');
    await page.setViewportSize({ width: 1280, height: 900 });
    // The range switch asks for the day by 5 minutes, and the hour by the minute (decision 49's defaults).
    expect(await pickRange(page, 'Last day')).toEqual({ start: expect.closeTo(Date.now() - 86_400_000, -5), period: 300 });
    await page.locator('figure.metric .summary', { hasText: 'over the last day' }).first().waitFor();
    expect(await pickRange(page, 'Last hour')).toEqual({ start: expect.closeTo(Date.now() - 3_600_000, -5), period: 60 });
    await page.locator('figure.metric .summary', { hasText: 'over the last hour' }).first().waitFor();
    expect(await page.locator('figure.metric canvas').count()).toBe(4);
    // Hidden, the tab's health and charts wait; shown again, both ask at once, well before their
    // intervals (10 s and 60 s) would have them ask (decision 292).
    const setHidden = (hidden: boolean) =>
      page.evaluate((h) => {
        Object.defineProperty(document, 'hidden', { value: h, configurable: true });
        document.dispatchEvent(new Event('visibilitychange'));
      }, hidden);
    await setHidden(true);
    const resumed = Promise.all(
      ['/health', '/metrics?'].map((part) =>
        page.waitForRequest((r) => r.url().includes('/dashboard/api/deployments/') && r.url().includes(part), { timeout: 5000 }),
      ),
    );
    await setHidden(false);
    await resumed;

    // The update's operation links back to its deployment.
    const update = page.locator('tr[data-operation-id]', { hasText: 'deployment.update' });
    await update.getByRole('link', { name: 'deployment.update' }).click();
    await page.getByRole('heading', { name: /Operation op_/ }).waitFor();
    await page
      .locator('.facts')
      .getByText(/Started/)
      .waitFor();
    expect(await page.locator('.facts').innerText()).toMatch(/Duration\s+\d+(\.\d)? s/);
    expect(await page.getByRole('button', { name: 'Cancel operation' }).count()).toBe(0);
    await page.getByRole('link', { name: '← Its deployment' }).click();
    await page.getByRole('heading', { name: 'Deployment web' }).waitFor();

    // Rollback to revision 1, after its own dry run.
    await page.getByRole('button', { name: 'Roll back to revision 1' }).click();
    const rollback = page.getByRole('dialog', { name: 'Roll back to revision 1?' });
    await rollback.locator('table.diff').waitFor();
    expect(await rollback.locator('tbody th').allInnerTexts()).toEqual(['config.env.API_TOKEN', 'config.env.LOG_LEVEL', 'config.size']);
    await rollback.getByRole('button', { name: 'Roll back' }).click();
    await facts.getByText(/^3, applied/).waitFor({ timeout: 60_000 });
    expect(await page.locator('tr[data-revision="3"]').innerText()).toContain('rollback to 1');
    expect(await facts.innerText()).toMatch(/Size\s+small/);

    // Destroy, confirmed; then the list hides it unless destroyed ones are asked for.
    await page.getByRole('button', { name: 'Destroy' }).click();
    await page.getByRole('dialog', { name: 'Destroy “web”?' }).getByRole('button', { name: 'Destroy deployment' }).click();
    await facts.locator('.badge', { hasText: 'destroyed' }).waitFor({ timeout: 60_000 });
    await page.getByRole('link', { name: '← Deployments' }).click();
    await page.locator('tr[data-deployment-id]', { hasText: 'etl' }).waitFor();
    expect(await page.locator(`tr[data-deployment-id="${made.deploymentId}"]`).count()).toBe(0);
    await page.getByLabel(/Show destroyed deployments/).check();
    await page.locator(`tr[data-deployment-id="${made.deploymentId}"]`).getByText('destroyed').waitFor();
    expect(await overflowingTables(page)).toEqual([]);
    await context.close();
  });

  it('shows a failed update as failed, the deployment ready on its configuration (a second stack whose platform fails restarts)', async () => {
    const failingDir = mkdtempSync(path.join(os.tmpdir(), 'dm-dash-fail-'));
    const failingEnv = {
      ...env,
      PORT: String(await freePort()),
      DYNAMODB_PORT: String(await freePort()),
      DATA_DIR: failingDir,
      PHASE_DELAY_MS: '1000',
      SIMULATED_FAILURE: 'restarting_services',
    };
    const failing = await startNpm(failingEnv);
    try {
      const r = npmScript(
        'users',
        ['create', '--org', 'acme', '--email', 'admin@acme.test', '--role', 'admin', '--password', PASSWORD],
        failingEnv,
      );
      expect(r.status).toBe(0);
      const { context, page } = await signedIn(
        'admin@acme.test',
        { viewport: { width: 1280, height: 900 } },
        new URL(failing.baseUrl).origin,
      );
      await page.getByRole('link', { name: 'Deployments' }).click();
      await page.getByRole('button', { name: 'New deployment' }).click();
      await page.getByLabel('Name (optional)').fill('fragile');
      await page.getByRole('button', { name: 'Create deployment' }).click();
      const facts = page.locator('.facts');
      await facts.locator('.badge', { hasText: 'ready' }).waitFor({ timeout: 60_000 });
      await page.getByRole('button', { name: 'Edit configuration' }).click();
      await page.getByLabel('Size').selectOption('large');
      await page.getByRole('button', { name: 'Review changes' }).click();
      await page.locator('table.diff').waitFor();
      await page.getByRole('button', { name: 'Apply changes' }).click();
      const following = page.getByRole('region', { name: 'Operation in progress' });
      await following.locator('.badge', { hasText: 'failed' }).waitFor({ timeout: 60_000 });
      await following.getByText(/Simulated failure in phase restarting_services/).waitFor();
      expect(await facts.innerText()).toMatch(/Size\s+small/);
      expect(await facts.innerText()).toMatch(/Revision\s+1, applied/);
      await facts.locator('.badge', { hasText: 'ready' }).waitFor();
      await page.locator('tr[data-operation-id]', { hasText: 'deployment.update' }).locator('.badge', { hasText: 'failed' }).waitFor();
      await context.close();
    } finally {
      await failing.stop().catch(() => failing.kill());
      rmSync(failingDir, { recursive: true, force: true });
    }
  });

  it('shows the activity page: who made each change, a key by its name (a revoked one too), the workflow as workflow, by deployment', async () => {
    const { context, page } = await signedIn('admin@acme.test', { viewport: { width: 1280, height: 900 } });
    const token = nextToken(page);
    await page.getByRole('link', { name: 'Activity' }).click();
    await page.getByRole('heading', { name: 'Activity' }).waitFor();
    // Another key of the organization destroys the deployment the revoked ci-pipeline key created.
    const made2 = await dashboardApi('POST', '/keys', await token, { name: 'ops-bot' });
    expect(made2.status).toBe(201);
    const botKey = { 'X-API-Key': made2.body.data.key as string };
    const createOp = await publicApi('GET', `/operations/${made.operationId}`, botKey);
    const deploymentId = createOp.body.data.resource.id as string;
    expect((await publicApi('DELETE', `/deployments/${deploymentId}`, botKey)).status).toBe(202);

    // The first page follows new changes: the destroy appears, by the key's name.
    const rows = page.locator('table.activity tbody tr');
    await rows.filter({ hasText: 'ops-bot' }).first().waitFor({ timeout: 15_000 });
    const who = await page.locator('table.activity tbody tr td:nth-child(3)').allInnerTexts();
    // The admin's own changes (earlier tests) by email, the key's by name, the workflow's as workflow.
    expect(who).toEqual(expect.arrayContaining(['key ops-bot', 'user admin@acme.test', 'workflow']));
    // Each key's id on hover.
    await page.locator(`.actor[title="${made2.body.data.id}"]`, { hasText: 'ops-bot' }).first().waitFor();
    // Newest first.
    const numbers = (await page.locator('table.activity tbody tr td:nth-child(1)').allInnerTexts()).map(Number);
    expect(numbers).toEqual([...numbers].sort((x, y) => y - x));
    await shot(page, 'activity');

    // Filtered by the deployment: only its own changes, its creation by ci-pipeline last.
    await page.getByLabel('Deployment id').fill(deploymentId);
    await page.getByRole('button', { name: 'Filter' }).click();
    // The filtered page has come once no operation (a link to its timeline) is listed.
    await page.waitForFunction(() => document.querySelectorAll('table.activity tbody a').length === 0);
    await rows.filter({ hasText: 'created (provisioning)' }).waitFor();
    const records = await page.locator('table.activity tbody tr td:nth-child(4)').allInnerTexts();
    // An update says what it changed: never just the fields' names.
    expect(await page.locator('table.activity tbody').innerText()).not.toContain('links changed');
    expect(records.every((r) => r === 'deployment etl')).toBe(true);
    expect(await rows.last().innerText()).toContain('ci-pipeline');
    // The revoked key still named, its id on hover.
    await page.locator(`.actor[title="${made.keyId}"]`, { hasText: 'ci-pipeline' }).first().waitFor();
    await page.getByRole('button', { name: 'Show all' }).click();
    await page.getByRole('link', { name: 'deployment.destroy' }).first().waitFor();
    expect(await page.getByLabel('Deployment id').inputValue()).toBe('');
    // The same page on a phone (390 px wide).
    await page.setViewportSize({ width: 390, height: 844 });
    expect(await fitsPhone(page)).toEqual({ pageScrolls: false, tables: [] });
    await shot(page, 'activity-phone');
    await context.close();
  });

  it('lets a viewer read the keys and their usage but not create or revoke them', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(`${origin}/dashboard/`);
    await shot(page, 'sign-in');
    // A wrong password is refused with the pool's message; then the keyboard alone signs in.
    await page.getByLabel('Email').fill('viewer@acme.test');
    await page.getByLabel('Password').fill('Not-the-password-1');
    await page.keyboard.press('Enter');
    await page.getByRole('alert').getByText('Incorrect username or password.').waitFor();
    await page.getByLabel('Password').fill(PASSWORD);
    const token = nextToken(page);
    await page.keyboard.press('Enter');
    await page.locator(`tr[data-key-id="${made.keyId}"]`).waitFor();
    expect(await page.getByRole('button', { name: 'Create key' }).count()).toBe(0);
    expect(await page.getByRole('button', { name: /Revoke/ }).count()).toBe(0);
    await page.getByText('an admin creates, rotates and revokes them').waitFor();

    const viewer = await token;
    expect((await dashboardApi('GET', `/keys/${made.keyId}/usage`, viewer)).status).toBe(200);

    // A deployment: everything to read, nothing to change.
    await page.goto(`${origin}/dashboard/#/deployments/${made.deploymentId}`);
    await page.getByRole('heading', { name: 'Deployment web' }).waitFor();
    await page.locator('tr[data-revision="3"]').waitFor();
    await page.getByText('an admin edits, rolls back and destroys it').waitFor();
    for (const name of ['Edit configuration', 'Destroy', /Roll back/, 'New deployment'])
      expect(await page.getByRole('button', { name }).count()).toBe(0);
    await page.getByRole('link', { name: '← Deployments' }).click();
    await page.getByRole('heading', { name: 'Deployments' }).waitFor();
    expect(await page.getByRole('button', { name: 'New deployment' }).count()).toBe(0);

    for (const [method, p, body] of [
      ['POST', '/keys', { name: 'sneaky' }],
      ['DELETE', `/keys/${made.keyId}`, undefined],
      ['POST', '/deployments', { app_type: 'airflow' }],
      ['PATCH', `/deployments/${made.deploymentId}`, { config: { size: 'large' } }],
      ['POST', `/deployments/${made.deploymentId}/rollback`, { revision: 1 }],
      ['DELETE', `/deployments/${made.deploymentId}`, undefined],
      ['POST', `/operations/${made.operationId}/cancel`, undefined],
    ] as const) {
      const r = await dashboardApi(method, p, viewer, body);
      expect({ status: r.status, code: r.body.error.code, message: r.body.error.message }).toEqual({
        status: 403,
        code: 'INSUFFICIENT_ROLE',
        message: 'Your role does not allow this. Required: admin',
      });
    }
    await context.close();
  });

  it("shows another organization's user none of it, and answers 404 for its keys and operations", async () => {
    const { context, page } = await signedIn('admin@globex.test');
    await page.getByRole('cell', { name: 'No keys yet.' }).waitFor();
    const token = nextToken(page);
    await page.getByRole('link', { name: 'Deployments' }).click();
    await page.getByRole('cell', { name: 'No deployments yet.' }).waitFor();
    const other = await token;
    expect((await dashboardApi('GET', `/keys/${made.keyId}/usage`, other)).body.error.code).toBe('API_KEY_NOT_FOUND');
    const revoke = await dashboardApi('DELETE', `/keys/${made.keyId}`, other);
    expect({ status: revoke.status, code: revoke.body.error.code }).toEqual({ status: 404, code: 'API_KEY_NOT_FOUND' });
    const op = await dashboardApi('GET', `/operations/${made.operationId}`, other);
    expect({ status: op.status, code: op.body.error.code }).toEqual({ status: 404, code: 'OPERATION_NOT_FOUND' });
    await context.close();
  });

  it('refuses a token older than its lifetime, and the app refreshes it without asking again', async () => {
    const { context, page } = await signedIn('admin@acme.test', { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true });
    await page.locator(`tr[data-key-id="${made.keyId}"]`).waitFor();
    expect(await fitsPhone(page)).toEqual({ pageScrolls: false, tables: [] });
    await shot(page, 'api-keys-phone');
    const first = nextToken(page);
    await page.getByRole('link', { name: 'Deployments' }).click();
    const old = await first;
    // The page keeps polling its deployments, so the app may refresh before the test clicks
    // anything: watch for the refresh and for a request with a new token from now on.
    const watch = { timeout: (TOKEN_SECONDS + 40) * 1000 };
    const refreshed = page.waitForRequest(
      (r) => r.url().endsWith('/cognito/') && (r.postData() ?? '').includes('REFRESH_TOKEN_AUTH'),
      watch,
    );
    const next = page.waitForRequest((r) => r.url().includes('/dashboard/api/') && r.headers().authorization !== `Bearer ${old}`, watch);
    expect((await dashboardApi('GET', '/me', old)).status).toBe(200);
    // Neither an API key's place nor the public API takes the token (decision 28).
    const publicRefusal = await publicApi('GET', '/deployments', { Authorization: `Bearer ${old}` });
    expect({ status: publicRefusal.status, code: publicRefusal.body.error.code }).toEqual({ status: 401, code: 'MISSING_API_KEY' });

    const deadline = Date.now() + (TOKEN_SECONDS + 10) * 1000;
    let refused: Awaited<ReturnType<typeof dashboardApi>> | undefined;
    while (Date.now() < deadline) {
      const r = await dashboardApi('GET', '/me', old);
      if (r.status !== 200) {
        refused = r;
        break;
      }
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
    expect({ status: refused?.status, code: refused?.body.error.code }).toEqual({ status: 401, code: 'TOKEN_EXPIRED' });

    // The app's next call refreshes the token with the refresh token, and the page carries on.
    await page.getByRole('link', { name: 'API keys' }).click();
    await refreshed;
    const fresh = (await next).headers().authorization!.replace(/^Bearer /, '');
    await page.locator(`tr[data-key-id="${made.keyId}"]`).waitFor();
    expect(await page.getByLabel('Password').count()).toBe(0);
    expect((await dashboardApi('GET', '/me', fresh)).body.data).toEqual({ email: 'admin@acme.test', org_id: 'acme', role: 'admin' });
    await context.close();
  });
  it('revokes the refresh token at sign-out: a copy of it no longer refreshes', async () => {
    const { context, page } = await signedIn('viewer@acme.test');
    const refreshToken = await page.evaluate(() => sessionStorage.getItem('dashboard.refreshToken'));
    const refreshWith = () =>
      fetch(`${origin}/cognito/`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/x-amz-json-1.1', 'X-Amz-Target': 'AWSCognitoIdentityProviderService.InitiateAuth' },
        body: JSON.stringify({
          AuthFlow: 'REFRESH_TOKEN_AUTH',
          ClientId: LOCAL_CLIENT_ID,
          AuthParameters: { REFRESH_TOKEN: refreshToken },
        }),
      });
    expect((await refreshWith()).status).toBe(200);
    const revoked = page.waitForResponse((r) => r.url().endsWith('/cognito/') && (r.request().postData() ?? '').includes('"Token"'));
    await page.getByRole('button', { name: 'Sign out' }).click();
    expect((await revoked).status()).toBe(200);
    await page.getByLabel('Password').waitFor();
    const after = await refreshWith();
    expect({ status: after.status, type: ((await after.json()) as { __type: string }).__type }).toEqual({
      status: 400,
      type: 'NotAuthorizedException',
    });
    await context.close();
  });

  it('refuses a request that names another host (DNS rebinding), and serves localhost', async () => {
    const { port } = new URL(origin);
    const status = (host: string) =>
      new Promise<number>((resolve, reject) => {
        http
          .get({ hostname: '127.0.0.1', port, path: '/dashboard/', headers: { Host: host } }, (res) => {
            res.resume();
            resolve(res.statusCode ?? 0);
          })
          .on('error', reject);
      });
    expect(await status(`rebind.attacker.test:${port}`)).toBe(421);
    expect(await status(`localhost:${port}`)).toBe(200);
  });

  it('lets an admin hibernate with an until, see the badge, edit the schedule after a dry-run diff, and wake (decision 50)', async () => {
    const { context, page } = await signedIn('admin@acme.test', { viewport: { width: 1280, height: 900 } });
    await page.getByRole('link', { name: 'Deployments' }).click();
    await page.getByRole('button', { name: 'New deployment' }).click();
    await page.getByLabel('Name (optional)').fill('sleepy');
    await page.getByLabel('App', { exact: true }).selectOption('superset');
    await page.getByRole('button', { name: 'Create deployment' }).click();
    await page.getByRole('heading', { name: 'Deployment sleepy' }).waitFor();
    const id = decodeURIComponent(new URL(page.url()).hash.split('/').pop()!);
    const facts = page.locator('.facts');
    await facts.locator('.badge', { hasText: 'ready' }).waitFor({ timeout: 60_000 });
    await page.locator('tr[data-operation-id]', { hasText: 'succeeded' }).waitFor({ timeout: 30_000 });
    // Awake: only Hibernate is offered.
    expect(await page.getByRole('button', { name: 'Wake', exact: true }).count()).toBe(0);

    // Hibernate until a date and time (the browser's zone is UTC here), confirmed in a dialog.
    await page.getByRole('button', { name: 'Hibernate', exact: true }).click();
    const dialog = page.getByRole('dialog', { name: 'Hibernate “sleepy”?' });
    await dialog.getByLabel('Until a date and time (at most 7 days)').check();
    const until = new Date(Math.floor(Date.now() / 60_000) * 60_000 + 2 * 3_600_000);
    await dialog.getByLabel('Hold until').fill(until.toISOString().slice(0, 16));
    await dialog.getByRole('button', { name: 'Hibernate' }).click();
    const following = page.getByRole('region', { name: 'Operation in progress' });
    await following.getByText('deployment.hibernate').waitFor();
    // While it runs, the control is disabled.
    await page.locator('.actions button:disabled', { hasText: 'Hibernate' }).waitFor({ timeout: 10_000 });
    await following.locator('.badge', { hasText: 'succeeded' }).waitFor({ timeout: 60_000 });
    const badge = facts.locator('.hibernation');
    await badge.locator('.badge', { hasText: 'hibernated' }).waitFor({ timeout: 10_000 });
    expect(await badge.innerText()).toMatch(/^hibernated until \w{3} \d{1,2}, \d{4}, \d{1,2}:\d{2}:00\s?[AP]M UTC$/);
    const record = await deploymentAs(page, id);
    expect(record.hibernation).toEqual({ state: 'hibernated', until: until.toISOString() });
    expect(await facts.innerText()).toMatch(/Health\s+hibernated/);
    await page.getByRole('button', { name: 'Wake', exact: true }).waitFor();
    expect(await page.getByRole('button', { name: 'Hibernate', exact: true }).count()).toBe(0);
    await page.locator('.timeline li', { hasText: 'hibernation: awake → hibernated' }).first().waitFor({ timeout: 15_000 });
    expect(await overflowingTables(page)).toEqual([]);
    await shot(page, 'deployment-hibernated');
    await page.setViewportSize({ width: 390, height: 844 });
    expect(await fitsPhone(page)).toEqual({ pageScrolls: false, tables: [] });
    await shot(page, 'deployment-hibernated-phone');
    await page.setViewportSize({ width: 1280, height: 900 });

    // The list shows the badge and the hold's end on the deployment's row.
    await page.getByRole('link', { name: '← Deployments' }).click();
    const row = page.locator(`tr[data-deployment-id="${id}"]`);
    await row.locator('.badge', { hasText: 'hibernated' }).waitFor();
    expect(await row.locator('.hibernation').innerText()).toMatch(/^hibernated until .* UTC$/);
    await row.getByRole('link', { name: 'sleepy' }).click();

    // The schedule, edited while hibernated (only config.hibernation may change then): the API's
    // refusal shown at its field, then the dry-run diff, then applied.
    await page.getByRole('button', { name: 'Edit configuration' }).click();
    await page.getByLabel('Hibernate and wake on a schedule').check();
    await page.getByLabel('Time zone').selectOption('Europe/Berlin');
    expect(await page.getByLabel('Hibernate at').first().inputValue()).toBe('0 19 * * 1-5');
    await page.getByRole('button', { name: 'Add schedule' }).click();
    await page.getByLabel('Hibernate at').nth(1).fill('0 25 * * 6');
    await page.getByLabel('Wake at').nth(1).fill('0 9 * * 0');
    await page.getByRole('button', { name: 'Review changes' }).click();
    const fieldError = page.locator('[data-schedule="1"] .field-error');
    await fieldError.waitFor();
    expect(await fieldError.innerText()).toContain('hour 25');
    expect(await page.locator('[data-schedule="1"] input[aria-invalid="true"]').count()).toBe(1);
    await page.getByLabel('Hibernate at').nth(1).fill('0 23 * * 6');
    // An edit clears the refusal, which was of what the form held then.
    expect(await page.locator('.edit .field-error, .edit [role="alert"]').count()).toBe(0);
    // Each expression's next three times in the chosen zone, from the lazily loaded croner.
    await page.locator('[data-schedule="0"] .next-runs').first().waitFor();
    expect(await page.locator('[data-schedule="0"] .next-runs').first().innerText()).toMatch(
      /^next: (\w{3} \d{1,2} \w{3}, 19:00(, )?){3}$/,
    );
    expect(await page.evaluate(() => performance.getEntriesByType('resource').some((e) => /\/cron-preview-\w+\.js$/.test(e.name)))).toBe(
      true,
    );
    await shot(page, 'deployment-schedule');
    await page.setViewportSize({ width: 390, height: 844 });
    expect(await fitsPhone(page)).toEqual({ pageScrolls: false, tables: [] });
    await page.setViewportSize({ width: 1280, height: 900 });
    await page.getByRole('button', { name: 'Review changes' }).click();
    const diff = page.locator('table.diff');
    await diff.waitFor();
    expect(await diff.locator('tbody tr').allInnerTexts()).toEqual([
      expect.stringMatching(
        /^config\.hibernation\s+\(none\)\s+sleep 0 19 \* \* 1-5, wake 0 7 \* \* 1-5; sleep 0 23 \* \* 6, wake 0 9 \* \* 0 \(Europe\/Berlin\)$/,
      ),
    ]);
    await page.getByRole('button', { name: 'Apply changes' }).click();
    await following.getByText('deployment.update').waitFor();
    await following.locator('.badge', { hasText: 'succeeded' }).waitFor({ timeout: 60_000 });
    await facts.getByText(/Europe\/Berlin/).waitFor({ timeout: 10_000 });
    expect((await deploymentAs(page, id)).config.hibernation).toEqual({
      schedules: [
        { hibernate: '0 19 * * 1-5', wake: '0 7 * * 1-5' },
        { hibernate: '0 23 * * 6', wake: '0 9 * * 0' },
      ],
      time_zone: 'Europe/Berlin',
    });

    // Wake, holding until the next scheduled change (no until).
    await page.getByRole('button', { name: 'Wake', exact: true }).click();
    const wake = page.getByRole('dialog', { name: 'Wake “sleepy”?' });
    expect(await wake.getByLabel('Until the next scheduled change').isChecked()).toBe(true);
    await wake.getByRole('button', { name: 'Wake' }).click();
    await following.getByText('deployment.wake').waitFor();
    await following.locator('.badge', { hasText: 'succeeded' }).waitFor({ timeout: 60_000 });
    await page.getByRole('button', { name: 'Hibernate', exact: true }).waitFor({ timeout: 10_000 });
    expect(await facts.locator('.hibernation').count()).toBe(0);
    expect((await deploymentAs(page, id)).hibernation).toEqual({ state: 'awake', until: null });
    await context.close();
  });

  it('has a favicon and a mark in its header', async () => {
    const html = await (await fetch(`${origin}/dashboard/`)).text();
    expect(html).toContain('<link rel="icon" type="image/svg+xml" href="/dashboard/favicon.svg">');
    const icon = await fetch(`${origin}/dashboard/favicon.svg`);
    expect(icon.status).toBe(200);
    expect(icon.headers.get('content-type')).toBe('image/svg+xml');
    expect(await icon.text()).toMatch(/^<svg xmlns="http:\/\/www.w3.org\/2000\/svg"/);
    const { context, page } = await signedIn('admin@acme.test', { viewport: { width: 1280, height: 900 } });
    await page.locator('header .brand svg.mark').waitFor();
    expect(await page.locator('header .brand svg.mark').boundingBox()).toMatchObject({ width: 24, height: 24 });
    await context.close();
  });
});
