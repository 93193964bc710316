/**
 * Decision 50 on the dashboard: the hibernated badge, the Hibernate / Wake control with
 * its `until` choice, and the editor of `config.hibernation` on the edit form.
 */
import { useEffect, useState } from 'preact/hooks';
import type { Deployment, HibernationConfigView } from '../../contract/schemas.js';
import { api } from './api.js';
import { ConfirmDialog } from './confirm.js';
import { formatTime } from './hooks.js';

/** The hibernated badge, with the manual hold's end when it has one; an awake deployment shows none. */
export function HibernationBadge({ hibernation }: { hibernation: Deployment['hibernation'] }) {
  if (hibernation.state !== 'hibernated') return null;
  return (
    <span class="hibernation">
      <span class="badge hibernated">hibernated</span>
      {hibernation.until && <span class="note"> until {formatTime(hibernation.until)}</span>}
    </span>
  );
}

/** A schedule configuration in words: `no schedule`, or each row and the zone. */
export const scheduleText = (h: HibernationConfigView | null): string =>
  h ? `${h.schedules.map((s) => `sleep ${s.hibernate}, wake ${s.wake}`).join('; ')} (${h.time_zone})` : 'no schedule';

/** The published limit on `until` (decision 50). */
const MAX_HOLD_MS = 7 * 24 * 3600_000;
const HOURS = { '1h': 1, '8h': 8 } as const;
type Hold = 'next' | keyof typeof HOURS | 'date';

/** A time as a datetime-local input writes it, in the reader's zone. */
const localInput = (t: number) => {
  const d = new Date(t);
  return new Date(t - d.getTimezoneOffset() * 60_000).toISOString().slice(0, 16);
};

/** The `until` a choice asks for; undefined: the hold ends at the next scheduled transition. */
function untilOf(hold: Hold, date: string, now: number): string | undefined {
  if (hold === 'next') return undefined;
  if (hold !== 'date') return new Date(now + HOURS[hold] * 3600_000).toISOString();
  const t = Date.parse(date);
  if (Number.isNaN(t)) throw new Error('Choose the date and time the hold ends.');
  return new Date(t).toISOString();
}

/**
 * Hibernate (an awake deployment) or Wake (a hibernated one), only for a ready one and not
 * while an operation runs on it; a dialog asks how long the choice holds against the schedule.
 */
export function HibernationControl(props: { deployment: Deployment; busy: boolean; onStarted: (operationId: string | null) => void }) {
  const d = props.deployment;
  const [open, setOpen] = useState(false);
  const [hold, setHold] = useState<Hold>('next');
  const [date, setDate] = useState('');
  if (d.status !== 'ready') return null;
  const kind = d.hibernation.state === 'awake' ? 'hibernate' : 'wake';
  const label = kind === 'hibernate' ? 'Hibernate' : 'Wake';
  const now = Date.now();
  const choices: [Hold, string][] = [
    ['next', d.config.hibernation ? 'Until the next scheduled change' : 'Until changed by hand (no schedule)'],
    ['1h', 'For 1 hour'],
    ['8h', 'For 8 hours'],
    ['date', 'Until a date and time (at most 7 days)'],
  ];
  return (
    <>
      <button
        type="button"
        class="secondary"
        disabled={props.busy}
        title={props.busy ? 'An operation is in progress on this deployment' : undefined}
        onClick={() => {
          setHold('next');
          setDate(localInput(now + 3600_000));
          setOpen(true);
        }}
      >
        {label}
      </button>
      <ConfirmDialog
        open={open}
        title={`${label} “${d.name}”?`}
        confirmLabel={label}
        onClose={() => setOpen(false)}
        onConfirm={async () => {
          const until = untilOf(hold, date, Date.now());
          const route = kind === 'hibernate' ? 'hibernateDeployment' : 'wakeDeployment';
          const answer = await api(route, { params: { deployment_id: d.id }, body: until ? { until } : {} });
          props.onStarted('operation_id' in answer ? answer.operation_id : null);
        }}
      >
        <p>
          {kind === 'hibernate'
            ? 'Its application stops and costs no compute; its data, configuration and URL are kept.'
            : 'Its application starts again with its configuration and data.'}
        </p>
        <fieldset class="hold">
          <legend>Hold this against the schedule</legend>
          {choices.map(([value, text]) => (
            <label class="check" key={value}>
              <input type="radio" name="hold" value={value} checked={hold === value} onChange={() => setHold(value)} /> {text}
            </label>
          ))}
          {hold === 'date' && (
            <input
              type="datetime-local"
              aria-label="Hold until"
              value={date}
              min={localInput(now)}
              max={localInput(now + MAX_HOLD_MS)}
              onInput={(e) => setDate((e.currentTarget as HTMLInputElement).value)}
            />
          )}
        </fieldset>
      </ConfirmDialog>
    </>
  );
}

/** One schedule row in the form. */
export interface ScheduleRow {
  key: number;
  hibernate: string;
  wake: string;
}

export interface ScheduleForm {
  on: boolean;
  rows: ScheduleRow[];
  timeZone: string;
}

/** The published limit on rows (decision 50). */
const MAX_ROWS = 10;
const WEEKDAYS = { hibernate: '0 19 * * 1-5', wake: '0 7 * * 1-5' };

export const scheduleFormOf = (h: HibernationConfigView | null): ScheduleForm => ({
  on: h !== null,
  rows: (h?.schedules ?? [WEEKDAYS]).map((s, key) => ({ key, ...s })),
  timeZone: h?.time_zone ?? (Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC'),
});

/** What the form asks `config.hibernation` to be, when it differs from `was` (decision 50); undefined: no change. */
export function schedulePatch(was: HibernationConfigView | null, form: ScheduleForm): HibernationConfigView | null | undefined {
  const to = form.on
    ? { schedules: form.rows.map((r) => ({ hibernate: r.hibernate.trim(), wake: r.wake.trim() })), time_zone: form.timeZone }
    : null;
  return JSON.stringify(to) === JSON.stringify(was) ? undefined : to;
}

/** The zones the browser knows, UTC and the current one first. */
const zones = (current: string) => [...new Set(['UTC', current, ...Intl.supportedValuesOf('timeZone')])];

/** The schedule preview's module (croner), loaded once, when the editor first shows a schedule. */
let preview: Promise<typeof import('./cron-preview.js')> | undefined;

/** The next three times an expression matches, in the chosen zone. */
function NextRuns({ expression, timeZone }: { expression: string; timeZone: string }) {
  const [runs, setRuns] = useState<Date[] | null>(null);
  useEffect(() => {
    let live = true;
    preview ??= import('./cron-preview.js');
    void preview.then((m) => live && setRuns(m.nextRuns(expression, timeZone, 3)));
    return () => {
      live = false;
    };
  }, [expression, timeZone]);
  if (!runs?.length) return null;
  const f = new Intl.DateTimeFormat('en-GB', {
    timeZone,
    weekday: 'short',
    day: 'numeric',
    month: 'short',
    hour: '2-digit',
    minute: '2-digit',
  });
  return <span class="note next-runs">next: {runs.map((r) => f.format(r)).join(', ')}</span>;
}

/**
 * The editor of `config.hibernation`: rows of hibernate and wake expressions (1 to 10) and a
 * time zone, or no schedule. `errors` are the API's, by field (`config.hibernation.…`).
 */
export function ScheduleEditor(props: { form: ScheduleForm; onChange: (f: ScheduleForm) => void; errors: Record<string, string> }) {
  const { form, onChange, errors } = props;
  const set = (key: number, to: Partial<ScheduleRow>) =>
    onChange({ ...form, rows: form.rows.map((r) => (r.key === key ? { ...r, ...to } : r)) });
  const fieldError = (field: string) => errors[`config.hibernation${field}`];
  const at = (i: number, kind: 'hibernate' | 'wake') => fieldError(`.schedules.${i}.${kind}`);
  return (
    <fieldset class="schedule">
      <legend>Hibernation schedule</legend>
      <label class="check">
        <input
          type="checkbox"
          checked={form.on}
          onChange={(e) => onChange({ ...form, on: (e.currentTarget as HTMLInputElement).checked })}
        />{' '}
        Hibernate and wake on a schedule
      </label>
      {!form.on && <p class="note">No schedule: the deployment sleeps and wakes only when asked.</p>}
      {form.on && (
        <>
          <p class="note">
            Cron expressions of five fields: minute hour day-of-month month day-of-week (0 = Sunday). <code>0 19 * * 1-5</code> is 19:00 on
            weekdays.
          </p>
          <div class="fields">
            <label for="edit-time-zone">Time zone</label>
            <select
              id="edit-time-zone"
              value={form.timeZone}
              onChange={(e) => onChange({ ...form, timeZone: (e.currentTarget as HTMLSelectElement).value })}
            >
              {zones(form.timeZone).map((z) => (
                <option key={z} value={z}>
                  {z}
                </option>
              ))}
            </select>
          </div>
          {fieldError('.time_zone') && <p class="field-error">Time zone {fieldError('.time_zone')}</p>}
          {form.rows.map((r, i) => (
            <div class="schedule-row" key={r.key} data-schedule={i}>
              {(['hibernate', 'wake'] as const).map((kind) => (
                <div class="cron" key={kind}>
                  <label>
                    {kind === 'hibernate' ? 'Hibernate at' : 'Wake at'}
                    <input
                      value={r[kind]}
                      required
                      spellcheck={false}
                      aria-invalid={at(i, kind) ? 'true' : undefined}
                      onInput={(e) => set(r.key, { [kind]: (e.currentTarget as HTMLInputElement).value })}
                    />
                  </label>
                  {at(i, kind) ? <p class="field-error">{at(i, kind)}</p> : <NextRuns expression={r[kind]} timeZone={form.timeZone} />}
                </div>
              ))}
              <button
                type="button"
                class="secondary small"
                aria-label={`Remove schedule ${i + 1}`}
                disabled={form.rows.length === 1}
                onClick={() => onChange({ ...form, rows: form.rows.filter((x) => x.key !== r.key) })}
              >
                Remove
              </button>
            </div>
          ))}
          {fieldError('.schedules') && <p class="field-error">Schedules {fieldError('.schedules')}</p>}
          <button
            type="button"
            class="secondary small"
            disabled={form.rows.length >= MAX_ROWS}
            onClick={() =>
              onChange({ ...form, rows: [...form.rows, { key: Math.max(-1, ...form.rows.map((x) => x.key)) + 1, ...WEEKDAYS }] })
            }
          >
            Add schedule
          </button>
        </>
      )}
    </fieldset>
  );
}
