/**
 * Decision 232: the dashboard API counts each user's requests against the limits of an API
 * key (decision 32), so a dry run's secret comparison costs a user what it costs a key; and
 * decision 228's repeated query parameters are refused there too.
 */
import { type DashboardSession, TEST_PASSWORD as PASSWORD, startDashboardSession } from '../helpers/dashboard-session.js';

// Small windows, so that a test reaches them; the key's limits are the same variables.
process.env.RATE_LIMIT_PER_MINUTE = '5';
process.env.RATE_LIMIT_PER_HOUR = '1000';

let session: DashboardSession;
const org = `org-lim-${Date.now().toString(36)}`;
const tokens: Record<'first' | 'second', string> = { first: '', second: '' };
const as = (who: keyof typeof tokens) => ({ Authorization: `Bearer ${tokens[who]}` });

beforeAll(async () => {
  session = await startDashboardSession();
  await session.users(['create', '--org', org, '--email', 'first@limits.test', '--role', 'admin', '--password', PASSWORD]);
  await session.users(['create', '--org', org, '--email', 'second@limits.test', '--role', 'viewer', '--password', PASSWORD]);
  tokens.first = await session.signIn('first@limits.test');
  tokens.second = await session.signIn('second@limits.test');
});

afterAll(() => session.close());

/** Waits, if needed, for a clock minute with room for `n` requests, so a window does not roll over mid-test. */
async function freshMinute(n: number): Promise<void> {
  const left = 60_000 - (Date.now() % 60_000);
  if (left < n * 1000 + 5000) await new Promise((r) => setTimeout(r, left + 50));
}

describe('the dashboard API rate limits (decision 232)', () => {
  it("refuses a user's changes and dry runs past the burst limit with 429 and the key's headers; reads and other users go on", async () => {
    await freshMinute(10);
    // Dry runs, each comparing a guessed secret (here of a deployment that does not exist: 404, counted all the same).
    const guess = (i: number) =>
      session.send('PATCH', `/deployments/00000000-0000-4000-8000-00000000000${i}?dry_run=true`, as('first'), {
        config: { env: { TOKEN: { value: `guess-${i}`, secret: true } } },
      });
    const answers = [];
    for (let i = 0; i < 6; i++) answers.push(await guess(i));
    expect(answers.map((a) => a.status)).toEqual([404, 404, 404, 404, 404, 429]);
    expect(answers[0]!.headers.get('x-ratelimit-limit')).toBe('1000');
    expect(answers.slice(0, 5).map((a) => a.headers.get('x-ratelimit-remaining'))).toEqual(['999', '998', '997', '996', '995']);
    const refused = answers[5]!;
    expect(refused.body.error.code).toBe('RATE_LIMIT_EXCEEDED');
    expect(refused.body.error.message).toMatch(
      /^Rate limit exceeded: the burst limit of 5 requests per minute for this user\. Retry after \d+ seconds\.$/,
    );
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(refused.headers.get('x-ratelimit-remaining')).toBe('0');
    // Every change counts: a rotation or a rollback is refused too, before it does anything.
    const rollback = await session.send('POST', '/deployments/00000000-0000-4000-8000-000000000000/rollback', as('first'), { revision: 1 });
    expect(rollback.status).toBe(429);
    // The pages' polling reads are not counted (they compare nothing); another user's changes are their own.
    expect((await session.send('GET', '/me', as('first'))).status).toBe(200);
    expect((await session.send('GET', '/deployments', as('first'))).status).toBe(200);
    expect(
      (await session.send('PATCH', '/deployments/00000000-0000-4000-8000-000000000000?dry_run=true', as('second'), {})).status,
    ).not.toBe(429);
  });

  it('refuses a known query parameter given twice (decision 228)', async () => {
    await freshMinute(2);
    const res = await session.send('GET', '/deployments?page=1&page=2', as('second'));
    expect(res.status).toBe(400);
    expect(res.body.error.details).toEqual([{ field: 'page', issue: 'must be given at most once' }]);
  });
});
