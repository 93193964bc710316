/**
 * deployctl webhooks and events: the webhook round trip and the events list against the
 * real handlers through the local API server; `events listen` forwarding to a local
 * receiver that verifies every request with the reference `standardwebhooks` library,
 * against the real server and against a scripted one (faults), in virtual time: each
 * poll's sleep runs the test's next step, and Ctrl-C (the signal) ends it.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { type CliContext, EXIT, runCli } from '../../client/cli/main.js';
import type { Clock, Event } from '../../client/index.js';
import { API_PREFIX } from '../../contract/routes.js';
import { call, createKey } from '../helpers/fixtures.js';
import { localApi } from '../helpers/local-api.js';
import { conformanceCheckingFetch } from '../helpers/openapi-conformance.js';
import { close, error, listen, operation, queryOf, scriptedServer } from '../helpers/scripted-api.js';

const local = localApi();

function sink() {
  let text = '';
  const write = (s: string) => {
    text += s;
    return true;
  };
  return { stream: { write }, text: () => text };
}

/** Runs deployctl in-process; the real server's answers are checked against the OpenAPI document, other requests (the receiver's) are not. */
async function deployctl(argv: string[], opts: { key?: string; url?: string; clock?: Clock; signal?: AbortSignal } = {}) {
  const out = sink();
  const err = sink();
  const checked = conformanceCheckingFetch();
  const url = opts.url ?? local.baseUrl;
  const ctx: CliContext = {
    stdout: out.stream,
    stderr: err.stream,
    env: { DEPLOY_API_KEY: opts.key ?? 'k', DEPLOY_API_URL: url },
    fetch: (input, init) => (!opts.url && String(input).startsWith(url) ? checked(input, init) : fetch(input, init)),
    clock: opts.clock,
    random: () => 1,
    signal: opts.signal,
  };
  const code = await runCli(argv, ctx);
  return { code, stdout: out.text(), stderr: err.text() };
}

/**
 * Virtual time from now (the signatures' timestamps must be current): each sleep of a
 * poll moves the clock and runs the next step; with no step left, it is Ctrl-C.
 */
function steppedClock(steps: (() => Promise<void>)[]) {
  const controller = new AbortController();
  let t = Date.now();
  const slept: number[] = [];
  const clock: Clock = {
    now: () => t,
    sleep: async (ms, signal) => {
      signal?.throwIfAborted();
      slept.push(ms);
      t += ms;
      if (ms > 0) {
        const step = steps.shift();
        if (step) await step();
        else controller.abort();
      }
      signal?.throwIfAborted();
    },
  };
  return { clock, slept, signal: controller.signal };
}

/** A local receiver: answers 204 and keeps each request, to be verified with `standardwebhooks` once the secret is known. */
async function receiver() {
  const requests: { body: string; headers: Record<string, string> }[] = [];
  const srv = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      requests.push({ body: Buffer.concat(chunks).toString('utf8'), headers: req.headers as Record<string, string> });
      res.writeHead(204).end();
    });
  });
  const url = `${await listen(srv)}/hooks`;
  const port = (srv.address() as AddressInfo).port;
  return {
    requests,
    url,
    /** The events received, each verified (standardwebhooks throws on a bad signature). */
    verified: (secret: string) => requests.map((r) => new Webhook(secret).verify(r.body, r.headers) as Event),
    down: () => close(srv),
    up: () => new Promise<void>((resolve) => srv.listen(port, '127.0.0.1', resolve)),
    close: async () => {
      if (srv.listening) await close(srv);
    },
  };
}

const secretOf = (stdout: string) => /Signing secret[^:]*: (whsec_\S+)/.exec(stdout)?.[1] ?? '';
const forwardLines = (stdout: string) => stdout.split('\n').filter((l) => l.startsWith('→'));

describe('deployctl webhooks', () => {
  it('creates (the secret shown once), lists, reads, lists deliveries of, and deletes a webhook', async () => {
    const { key } = await createKey();
    const created = await deployctl(
      [
        'webhooks',
        'create',
        '--url',
        'https://hooks.example.com/deploy',
        '--events',
        'deployment.created,operation.updated',
        '--description',
        'ci',
      ],
      { key },
    );
    expect(created).toMatchObject({ code: EXIT.ok, stderr: '' });
    const id = /^id:\s+(wh_[0-9a-f]{32})$/m.exec(created.stdout)?.[1];
    expect(id).toBeDefined();
    expect(created.stdout).toMatch(/^events:\s+deployment\.created, operation\.updated$/m);
    expect(created.stdout).toContain('Signing secret (shown only this once; store it now');
    expect(created.stdout).toMatch(/^ {2}whsec_[A-Za-z0-9+/]{43}=$/m);

    const asJson = await deployctl(['webhooks', 'create', '--url', 'https://hooks.example.com/other', '--json'], { key });
    expect(JSON.parse(asJson.stdout)).toMatchObject({ url: 'https://hooks.example.com/other', secret: expect.stringMatching(/^whsec_/) });

    const listed = await deployctl(['webhooks', 'list'], { key });
    expect(listed.code).toBe(EXIT.ok);
    expect(listed.stdout.split('\n')[0]).toMatch(/^ID\s+URL\s+EVENTS\s+CREATED$/);
    expect(listed.stdout).toMatch(
      new RegExp(`^${id}\\s+https://hooks\\.example\\.com/deploy\\s+deployment\\.created,operation\\.updated\\s`, 'm'),
    );
    expect(listed.stdout).toContain('page 1 of 1, 2 in total');
    expect(listed.stdout).not.toContain('whsec_');

    const shown = await deployctl(['webhooks', 'get', id!], { key });
    expect(shown.stdout).toMatch(/^description:\s+ci$/m);
    expect(shown.stdout).not.toContain('whsec_');
    const deliveries = await deployctl(['webhooks', 'deliveries', id!, '--per-page', '5'], { key });
    expect(deliveries.code).toBe(EXIT.ok);
    expect(deliveries.stdout).toMatch(/No deliveries yet\.|^EVENT\s+ATTEMPT/m);

    const deleted = await deployctl(['webhooks', 'delete', id!], { key });
    expect(deleted).toMatchObject({ code: EXIT.ok, stdout: `Webhook ${id} deleted.\n` });
    const gone = await deployctl(['webhooks', 'get', id!], { key });
    expect(gone.code).toBe(EXIT.apiError);
    expect(gone.stderr).toMatch(/^Error: WEBHOOK_NOT_FOUND: .*HTTP 404/);
    const noDeliveries = await deployctl(['webhooks', 'deliveries', id!], { key });
    expect(noDeliveries.code).toBe(EXIT.apiError);
  });

  it.each([
    [['webhooks', 'create'], /--url is required/],
    [['webhooks', 'create', '--url', 'https://h.example.com', '--events', 'deployment.created,nope'], /--events must be one of/],
    [['webhooks', 'deliveries'], /webhooks deliveries takes <webhook-id>/],
    [['events', 'list', '--type', 'nope'], /--type must be one of/],
    [['events', 'listen'], /--forward-to is required/],
    [['events', 'listen', '--forward-to', 'ftp://x'], /--forward-to must be an http or https URL/],
    [['events', 'listen', '--forward-to', 'http://127.0.0.1:1', '--secret', 'whsec_!!'], /--secret must be whsec_/],
    [['events', 'listen', '--forward-to', 'http://127.0.0.1:1', '--from-start', '--since', '3'], /exclude each other/],
    [['events', 'listen', '--forward-to', 'http://127.0.0.1:1', '--type', 'deployment.created,x'], /--type must be one of/],
  ])('%j is a usage error (exit 2) before anything is sent', async (argv, message) => {
    const res = await deployctl(argv, { url: 'http://127.0.0.1:1' });
    expect(res.code).toBe(EXIT.usage);
    expect(res.stderr).toMatch(message);
  });
});

describe('deployctl events list', () => {
  it('lists the events newest first, filtered by type and by resource', async () => {
    const { key } = await createKey();
    const made = await call('POST', '/deployments', { key, body: { app_type: 'airflow' } });
    expect(made.status).toBe(202);
    const depId: string = made.body.data.deployment_id;

    const byType = await deployctl(['events', 'list', '--type', 'deployment.created'], { key });
    expect(byType.code).toBe(EXIT.ok);
    expect(byType.stdout.split('\n')[0]).toMatch(/^SEQUENCE\s+TYPE\s+OBJECT\s+STATUS\s+CREATED\s+ID$/);
    expect(byType.stdout).toMatch(new RegExp(`^\\d+\\s+deployment\\.created\\s+${depId}\\s+\\w+\\s+\\d{4}-\\S+\\s+evt_`, 'm'));
    expect(byType.stdout).toContain('page 1 of 1, 1 in total');

    const byResource = await deployctl(['events', 'list', '--resource-id', depId, '--json', '--per-page', '50'], { key });
    const page = JSON.parse(byResource.stdout) as { items: Event[] };
    expect(page.items.length).toBeGreaterThan(0);
    expect(page.items.every((e) => e.data.object.id === depId)).toBe(true);
    const sequences = page.items.map((e) => e.sequence);
    expect(sequences).toEqual([...sequences].sort((a, b) => b - a));

    const none = await deployctl(['events', 'list', '--resource-id', 'dep_00000000-0000-4000-8000-000000000000'], { key });
    expect(none.stdout).toContain('No events.');
  });
});

describe('deployctl events listen', () => {
  it('forwards only new events, signed and in sequence order, and goes on when the receiver is down for a while', async () => {
    const { key } = await createKey();
    const create = async () =>
      (await call('POST', '/deployments', { key, body: { app_type: 'superset' } })).body.data.deployment_id as string;
    const before = await create();
    const rx = await receiver();
    const ids: string[] = [];
    const { clock, slept, signal } = steppedClock([
      async () => {
        ids.push(await create());
      },
      async () => {
        await rx.down();
        ids.push(await create());
      },
      async () => {
        await rx.up();
        ids.push(await create());
      },
    ]);
    const res = await deployctl(['events', 'listen', '--forward-to', rx.url, '--type', 'deployment.created'], { key, clock, signal });
    await rx.close();
    const secret = secretOf(res.stdout);
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(res.code).toBe(EXIT.interrupted);
    expect(res.stderr).toMatch(
      /^Forwarding deployment\.created events after sequence \d+ to http:\/\/127\.0\.0\.1:\d+\/hooks; Ctrl-C stops\.$/m,
    );
    expect(res.stderr).toMatch(/Stopped listening after 3 forwarded; resume with --since \d+\./);

    const lines = forwardLines(res.stdout);
    expect(lines).toHaveLength(3);
    expect(lines[0]).toMatch(new RegExp(`^→ \\d+ deployment\\.created ${ids[0]} \\[204\\]$`));
    expect(lines[1]).toMatch(new RegExp(`^→ \\d+ deployment\\.created ${ids[1]} \\[failed: .+\\]$`));
    expect(lines[2]).toMatch(new RegExp(`^→ \\d+ deployment\\.created ${ids[2]} \\[204\\]$`));
    const sequences = lines.map((l) => Number(l.split(' ')[1]));
    expect(sequences).toEqual([...sequences].sort((a, b) => a - b));

    const received = rx.verified(secret).map((e) => e.data.object.id);
    expect(received).toEqual([ids[0], ids[2]]);
    expect(received).not.toContain(before);
    // Each look found events, so the next came a second later (the first look, for the newest sequence, at once).
    expect(slept).toEqual([0, 1000, 1000, 1000, 1000]);
  });

  it('signs so that standardwebhooks verifies, with the body exactly the event the API lists', async () => {
    const { key } = await createKey();
    await call('POST', '/deployments', { key, body: { app_type: 'airflow' } });
    const secret = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
    const rx = await receiver();
    // One poll, then Ctrl-C.
    const { clock, signal } = steppedClock([async () => undefined]);
    const res = await deployctl(['events', 'listen', '--forward-to', rx.url, '--from-start', '--secret', secret], { key, clock, signal });
    await rx.close();
    expect(res.code).toBe(EXIT.interrupted);
    expect(secretOf(res.stdout)).toBe(secret);
    const listed = (await call('GET', '/events?per_page=100', { key })).body.data.items as Event[];
    const forwarded = rx.verified(secret);
    expect(rx.requests.every((r) => r.body === JSON.stringify(listed.find((l) => l.id === r.headers['webhook-id'])))).toBe(true);
    // What the first poll saw, oldest first, each exactly as listed.
    expect(forwarded.length).toBeGreaterThanOrEqual(2);
    for (const e of forwarded) expect(e).toEqual(listed.find((l) => l.sequence === e.sequence));
    expect(forwarded.map((e) => e.sequence)).toEqual(forwarded.map((_, i) => i + 1));
  });
});

describe('deployctl events listen (scripted server, virtual time)', () => {
  const event = (sequence: number, type: Event['type'] = 'operation.updated'): Event => ({
    id: `evt_00000000-0000-4000-8000-${String(sequence).padStart(12, '0')}`,
    type,
    sequence,
    created_at: '2026-11-22T06:40:00.000Z',
    actor: { type: 'system' },
    data: { object: operation('running', 'provisioning_db') },
  });
  const page = (items: Event[], pages = 1) => ({
    status: 200,
    body: { data: { items, pagination: { page: 1, per_page: 100, total: items.length, pages }, links: {} } },
  });

  it('keeps following through a 503 (backing off), a 429 (its Retry-After) and a dropped connection; filters by type; pages back to the cursor', async () => {
    const steps: Parameters<typeof scriptedServer>[1] = [
      page([event(5)]),
      error(503, 'INTERNAL_ERROR'),
      error(429, 'RATE_LIMIT_EXCEEDED', { 'Retry-After': '7' }),
      'drop',
      page([event(7), event(6, 'deployment.created')]),
      // Two pages of new events: the second reaches back to the cursor.
      page([event(10), event(9)], 2),
      page([event(8), event(7)], 2),
    ];
    // Five polls' sleeps use the script up (the 503, 429 and drop included); the sixth is Ctrl-C.
    const { clock, slept, signal } = steppedClock(Array.from({ length: 5 }, () => async () => undefined));
    const { server: s, seen } = scriptedServer(clock, () => steps.shift());
    const url = `${await listen(s)}${API_PREFIX}`;
    const rx = await receiver();
    const secret = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
    const res = await deployctl(
      ['events', 'listen', '--forward-to', rx.url, '--secret', secret, '--type', 'operation.updated,operation.created'],
      { url, clock, signal },
    );
    await rx.close();
    await close(s);
    expect(res.code).toBe(EXIT.interrupted);
    expect(res.stderr.split('\n').filter((l) => l.startsWith('retrying'))).toEqual([
      'retrying in 1s (503 INTERNAL_ERROR)',
      'retrying in 7s (429 RATE_LIMIT_EXCEEDED)',
      'retrying in 2s (other side closed)',
    ]);
    expect(forwardLines(res.stdout).map((l) => l.split(' ').slice(0, 3).join(' '))).toEqual([
      '→ 7 operation.updated',
      '→ 8 operation.updated',
      '→ 9 operation.updated',
      '→ 10 operation.updated',
    ]);
    expect(rx.verified(secret).map((e) => e.sequence)).toEqual([7, 8, 9, 10]);
    expect(slept).toEqual([0, 1000, 1000, 7000, 2000, 1000, 1000]);
    expect(queryOf(seen[0]!)).toEqual({ per_page: '1' });
    expect(seen.slice(-2).map(queryOf)).toEqual([
      { page: '1', per_page: '100' },
      { page: '2', per_page: '100' },
    ]);
  });

  it('waits twice as long after each look that finds nothing, up to 30 s, and a second after one that finds events', async () => {
    const answers = [page([event(5)]), ...Array.from({ length: 7 }, () => page([])), page([event(6)])];
    const { clock, slept, signal } = steppedClock(Array.from({ length: 9 }, () => async () => undefined));
    const { server: s, seen } = scriptedServer(clock, () => answers.shift() ?? page([]));
    const url = `${await listen(s)}${API_PREFIX}`;
    const rx = await receiver();
    const res = await deployctl(['events', 'listen', '--forward-to', rx.url], { url, clock, signal });
    await rx.close();
    await close(s);
    expect(res.code).toBe(EXIT.interrupted);
    expect(forwardLines(res.stdout).map((l) => l.split(' ').slice(0, 2).join(' '))).toEqual(['→ 6']);
    expect(slept).toEqual([0, 1000, 2000, 4000, 8000, 16_000, 30_000, 30_000, 30_000, 1000, 2000]);
    // One request a look: the cursor, then nine looks.
    expect(seen).toHaveLength(10);
  });
});

it("shows customer text's control characters as \\u escapes, never raw: in a resource, in a table, and as the same value with --json", async () => {
  const { key } = await createKey();
  const description = 'ci\u001b[1A\u001b[2K\rfake line\u009b\u202e';
  const made = await call('POST', '/webhooks', { key, body: { url: 'https://hooks.example.com/esc', description } });
  expect(made.status).toBe(201);
  const raw = /(?!\n)[\p{Cc}\u202e]/u;
  const shown = await deployctl(['webhooks', 'get', made.body.data.id], { key });
  expect(shown.stdout).not.toMatch(raw);
  expect(shown.stdout).toMatch(/^description:\s+ci\\u001b\[1A\\u001b\[2K\\u000dfake line\\u009b\\u202e$/m);
  const asJson = await deployctl(['webhooks', 'get', made.body.data.id, '--json'], { key });
  expect(asJson.stdout).not.toMatch(raw);
  expect(JSON.parse(asJson.stdout).description).toBe(description);
});
