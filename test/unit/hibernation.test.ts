/** Decision 50's pure rules: a hold's `until`, what a success writes, the metrics' gaps, the schedules' merge patch and next visit. */
import { nextVisit } from '../../functions/app/hibernation-scheduler.js';
import { configChanges, patchHibernation, type StoredConfig } from '../../functions/core/deployment-config.js';
import type { DeploymentRecord } from '../../functions/core/deployments.js';
import { awakeChange, cutHibernated, hibernatedChange, holdIssues, MAX_HIBERNATED_SPANS } from '../../functions/core/hibernation.js';

const NOW = Date.parse('2026-11-28T10:00:00.000Z');
const BERLIN = { schedules: [{ hibernate: '0 19 * * 1-5', wake: '0 7 * * 1-5' }], time_zone: 'Europe/Berlin' };

const record = (fields: Partial<DeploymentRecord> = {}): DeploymentRecord => ({
  id: '11111111-1111-4111-8111-111111111111',
  org_id: 'org-1',
  name: 'd',
  app_type: 'superset',
  status: 'ready',
  environment_id: 'env_default',
  created_at: '2026-11-01T00:00:00.000Z',
  updated_at: '2026-11-01T00:00:00.000Z',
  config: { app_version: '5.0.0', size: 'small', env: {}, hibernation: null },
  revision: 1,
  applied_at: '2026-11-01T00:00:00.000Z',
  in_flight: [],
  last_operation_id: null,
  op_count: 1,
  health: { status: 'healthy', since: '2026-11-01T00:05:00.000Z' },
  ...fields,
});

describe('holdIssues', () => {
  it.each([
    [undefined, []],
    ['2026-11-28T10:00:01.000Z', []],
    ['2026-12-05T10:00:00.000Z', []],
    ['2026-11-28T10:00:00.000Z', ['must be in the future']],
    ['2026-12-05T10:00:00.001Z', ['must be at most 7 days ahead']],
    ['2026-13-45T10:00:00Z', ['must be a valid timestamp']],
  ])('%s: %j', (until, issues) => {
    expect(holdIssues(until, NOW).map((i) => i.issue)).toEqual(issues);
  });
});

describe('what a hibernate’s and a wake’s success write', () => {
  const previous = {
    status: 'healthy' as const,
    since: '2026-11-01T00:05:00.000Z',
    checked_at: '2026-11-28T09:59:00.000Z',
    components: [],
  };

  it('hibernated: the state (the hold kept), health hibernated since then, a span opened, off the checker’s list', () => {
    const d = record({ hibernation: { state: 'awake', until: '2026-11-29T00:00:00.000Z' } });
    const { set, healthItem } = hibernatedChange(d, previous, '2026-11-28T10:00:00.000Z');
    expect(set).toEqual({
      hibernation: { state: 'hibernated', until: '2026-11-29T00:00:00.000Z' },
      health: { status: 'hibernated', since: '2026-11-28T10:00:00.000Z' },
      hibernated_spans: [{ from: '2026-11-28T10:00:00.000Z', to: null }],
    });
    expect(healthItem).toEqual({
      detail: { status: 'hibernated', since: '2026-11-28T10:00:00.000Z', checked_at: previous.checked_at, components: [] },
      watched: false,
    });
  });

  it('keeps only the latest spans', () => {
    const spans = Array.from({ length: MAX_HIBERNATED_SPANS }, (_, i) => ({
      from: `2026-10-${String((i % 28) + 1).padStart(2, '0')}T00:00:00.000Z`,
      to: 'x',
    }));
    const { set } = hibernatedChange(record({ hibernated_spans: spans }), previous, '2026-11-28T10:00:00.000Z');
    expect(set.hibernated_spans).toHaveLength(MAX_HIBERNATED_SPANS);
    expect(set.hibernated_spans!.at(-1)).toEqual({ from: '2026-11-28T10:00:00.000Z', to: null });
  });

  it('awake: the first check’s health, the open span closed, back on the checker’s list', () => {
    const d = record({
      hibernation: { state: 'hibernated', until: null },
      health: { status: 'hibernated', since: '2026-11-27T19:00:00.000Z' },
      hibernated_spans: [{ from: '2026-11-27T19:00:00.000Z', to: null }],
    });
    const checked = {
      status: 'healthy' as const,
      since: '2026-11-28T07:00:00.000Z',
      checked_at: '2026-11-28T07:00:00.000Z',
      components: [],
    };
    const { set, healthItem } = awakeChange(d, checked, '2026-11-28T07:00:00.000Z');
    expect(set).toEqual({
      hibernation: { state: 'awake', until: null },
      health: { status: 'healthy', since: '2026-11-28T07:00:00.000Z' },
      hibernated_spans: [{ from: '2026-11-27T19:00:00.000Z', to: '2026-11-28T07:00:00.000Z' }],
    });
    expect(healthItem.watched).toBe(true);
  });
});

describe('cutHibernated', () => {
  const t = (s: string) => Date.parse(s) / 1000;
  it('cuts each span out of the runs, an open one to the end', () => {
    const runs = [{ from: t('2026-11-28T00:00:00Z'), to: null }];
    const spans = [
      { from: '2026-11-28T02:00:00.000Z', to: '2026-11-28T03:00:00.000Z' },
      { from: '2026-11-28T05:00:00.000Z', to: null },
    ];
    expect(cutHibernated(runs, spans)).toEqual([
      { from: t('2026-11-28T00:00:00Z'), to: t('2026-11-28T02:00:00Z') },
      { from: t('2026-11-28T03:00:00Z'), to: t('2026-11-28T05:00:00Z') },
    ]);
  });
  it('leaves runs a span does not touch, and drops one it covers', () => {
    const runs = [{ from: 100, to: 200 }];
    expect(cutHibernated(runs, [{ from: new Date(300_000).toISOString(), to: null }])).toEqual(runs);
    expect(cutHibernated(runs, [{ from: new Date(50_000).toISOString(), to: new Date(250_000).toISOString() }])).toEqual([]);
  });
});

describe('config.hibernation as a merge patch (RFC 7396)', () => {
  it('null removes it; an object merges (schedules replaced whole, time_zone kept or defaulted)', () => {
    expect(patchHibernation(BERLIN, undefined)).toEqual({ hibernation: BERLIN, problems: [] });
    expect(patchHibernation(BERLIN, null)).toEqual({ hibernation: null, problems: [] });
    expect(patchHibernation(BERLIN, { time_zone: 'UTC' }).hibernation).toEqual({ ...BERLIN, time_zone: 'UTC' });
    expect(patchHibernation(BERLIN, { time_zone: null }).hibernation).toEqual({ ...BERLIN, time_zone: 'UTC' });
    const list = [{ hibernate: '0 1 * * *', wake: '0 2 * * *' }];
    expect(patchHibernation(BERLIN, { schedules: list }).hibernation).toEqual({ schedules: list, time_zone: 'Europe/Berlin' });
    expect(patchHibernation(null, { schedules: list }).hibernation).toEqual({ schedules: list, time_zone: 'UTC' });
    expect(patchHibernation(null, { time_zone: 'UTC' }).problems).toEqual([
      { field: 'config.hibernation.schedules', issue: 'is required' },
    ]);
  });

  it('is one change, config.hibernation, whatever changed inside it', () => {
    const before: StoredConfig = { app_version: '5.0.0', size: 'small', env: {} };
    expect(configChanges(before, { ...before, hibernation: BERLIN })).toEqual([{ field: 'config.hibernation', from: null, to: BERLIN }]);
    expect(configChanges({ ...before, hibernation: BERLIN }, { ...before, hibernation: { ...BERLIN, time_zone: 'UTC' } })).toHaveLength(1);
    expect(configChanges({ ...before, hibernation: null }, before)).toEqual([]);
  });
});

describe('the scheduler’s next visit', () => {
  // Monday 2030-01-07, 19:00 Berlin = 18:00 UTC.
  const MINUTE = Date.parse('2030-01-07T18:00:00.000Z');
  it('is the next transition, the hold’s end when earlier, or none', async () => {
    const scheduled = record({ config: { app_version: '5.0.0', size: 'small', env: {}, hibernation: BERLIN } });
    expect(await nextVisit(scheduled, MINUTE)).toBe('2030-01-08T06:00:00.000Z');
    const held = { ...scheduled, hibernation: { state: 'awake' as const, until: '2030-01-07T20:30:10.000Z' } };
    expect(await nextVisit(held, MINUTE)).toBe('2030-01-07T20:31:00.000Z');
    expect(await nextVisit(record(), MINUTE)).toBeNull();
    // Friday 19:00 → Monday 07:00.
    expect(await nextVisit(scheduled, Date.parse('2030-01-11T18:00:00.000Z'))).toBe('2030-01-14T06:00:00.000Z');
  });
});
