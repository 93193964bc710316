import { useState } from 'preact/hooks';
import { DEFAULT_APP_VERSIONS } from '../../../contract/config-variables.js';
import type { ConfigChange, Deployment } from '../../../contract/schemas.js';
import { SIZES } from '../../../contract/vocabulary.js';
import { Alert } from '../alert.js';
import { ApiFailure, api } from '../api.js';
import { ChangeList } from '../changes.js';
import { ScheduleEditor, scheduleFormOf, schedulePatch } from '../hibernation.js';
import { messageOf } from '../hooks.js';

/** The decision 42 ETag of the revision the user looked at: a change made since is refused (412), not overwritten. */
export const revisionTag = (d: Deployment) => `"${d.revision}"`;

/** One env entry in the form: as it is (`was`) and as the user leaves it. */
interface EnvRow {
  key: number;
  name: string;
  was?: Deployment['config']['env'][string];
  /** For a secret that is kept, empty: its value is not known here and is left alone. */
  value: string;
  secret: boolean;
  remove: boolean;
}

type EnvPatch = Record<string, { value?: string; secret?: boolean } | null>;
type ConfigPatch = {
  app_version?: string;
  size?: (typeof SIZES)[number];
  env?: EnvPatch;
  hibernation?: Deployment['config']['hibernation'];
};

const rowsOf = (env: Deployment['config']['env']): EnvRow[] =>
  Object.keys(env)
    .sort()
    .map((name, key) => {
      const was = env[name]!;
      return { key, name, was, value: 'value' in was ? was.value : '', secret: was.secret, remove: false };
    });

/** The merge patch (decision 42) that takes the deployment to what the form shows: only what differs. */
function patchOf(d: Deployment, version: string, size: string, rows: EnvRow[]): ConfigPatch {
  const patch: ConfigPatch = {};
  if (version.trim() !== d.config.app_version) patch.app_version = version.trim();
  if (size !== d.config.size) patch.size = size as ConfigPatch['size'];
  const env: EnvPatch = {};
  for (const r of rows) {
    const name = r.name.trim();
    if (!name) continue;
    if (!r.was) {
      if (!r.remove) env[name] = { value: r.value, secret: r.secret };
    } else if (r.remove) env[name] = null;
    else if (r.value !== ('value' in r.was ? r.was.value : '') || (r.secret && r.value !== ''))
      env[name] = { value: r.value, secret: r.secret };
    else if (r.secret !== r.was.secret) env[name] = { secret: r.secret };
  }
  if (Object.keys(env).length) patch.env = env;
  return patch;
}

/**
 * The configuration form: the user's changes are first sent as a dry run, whose
 * `changes` are shown as a diff; only "Apply" sends the update, against the revision the
 * diff was made from.
 */
export function EditForm(props: { deployment: Deployment; onCancel: () => void; onApplied: (operationId: string | null) => void }) {
  const d = props.deployment;
  const [version, setVersion] = useState(d.config.app_version);
  const [size, setSize] = useState<string>(d.config.size);
  const [rows, setRows] = useState<EnvRow[]>(() => rowsOf(d.config.env));
  const [schedule, setSchedule] = useState(() => scheduleFormOf(d.config.hibernation));
  const [fieldErrors, setFieldErrors] = useState<Record<string, string>>({});
  const [review, setReview] = useState<{ patch: ConfigPatch; changes: ConfigChange[]; tag: string } | null>(null);
  const [error, setError] = useState('');
  const [busy, setBusy] = useState(false);
  const change = (key: number, to: Partial<EnvRow>) => setRows((all) => all.map((r) => (r.key === key ? { ...r, ...to } : r)));
  const add = () =>
    setRows((all) => [...all, { key: Math.max(-1, ...all.map((r) => r.key)) + 1, name: '', value: '', secret: false, remove: false }]);

  const run = async (what: () => Promise<void>) => {
    setBusy(true);
    setError('');
    setFieldErrors({});
    try {
      await what();
    } catch (e) {
      setError(messageOf(e));
      if (e instanceof ApiFailure) setFieldErrors(Object.fromEntries(e.details.map((x) => [x.field, x.issue])));
    } finally {
      setBusy(false);
    }
  };
  const preview = (e: Event) => {
    e.preventDefault();
    void run(async () => {
      const patch = patchOf(d, version, size, rows);
      const hibernation = schedulePatch(d.config.hibernation, schedule);
      if (hibernation !== undefined) patch.hibernation = hibernation;
      const tag = revisionTag(d);
      const answer = await api('updateDeployment', {
        params: { deployment_id: d.id },
        query: { dry_run: 'true' },
        body: { config: patch },
        ifMatch: tag,
      });
      setReview({ patch, changes: 'changes' in answer ? answer.changes : [], tag });
    });
  };
  const apply = () =>
    run(async () => {
      const answer = await api('updateDeployment', {
        params: { deployment_id: d.id },
        body: { config: review!.patch },
        ifMatch: review!.tag,
      });
      props.onApplied('operation_id' in answer ? answer.operation_id : null);
    });

  if (review)
    return (
      <section class="panel edit" aria-labelledby="review-title">
        <h2 id="review-title">Review the changes</h2>
        <p class="note">A dry run against revision {d.revision}: nothing has changed yet.</p>
        <ChangeList changes={review.changes} />
        <Alert message={error} />
        <div class="actions">
          <button type="button" class="secondary" onClick={() => setReview(null)}>
            Back to the form
          </button>
          <button type="button" disabled={busy || review.changes.length === 0} onClick={apply}>
            Apply changes
          </button>
        </div>
      </section>
    );
  return (
    <form class="panel edit" onSubmit={preview} aria-labelledby="edit-title">
      <h2 id="edit-title">Edit configuration</h2>
      <div class="fields">
        <label for="edit-version">App version</label>
        {/* The supported releases (decision 41), newest last, and the current one even if no longer offered. */}
        <select id="edit-version" value={version} required onChange={(e) => setVersion((e.currentTarget as HTMLSelectElement).value)}>
          {[...new Set([...DEFAULT_APP_VERSIONS[d.app_type], d.config.app_version])].map((v) => (
            <option key={v} value={v}>
              {v}
              {v === d.config.app_version ? ' (current)' : ''}
            </option>
          ))}
        </select>
        <label for="edit-size">Size</label>
        <select id="edit-size" value={size} onChange={(e) => setSize((e.currentTarget as HTMLSelectElement).value)}>
          {SIZES.map((s) => (
            <option key={s} value={s}>
              {s}
            </option>
          ))}
        </select>
      </div>
      <fieldset>
        <legend>Environment variables</legend>
        <p class="note">A secret's value is never shown: leave it empty to keep it, or type a new one.</p>
        {rows.map((r) => (
          <div class="env-row" key={r.key} data-env={r.name}>
            <input
              aria-label="Variable name"
              value={r.name}
              readOnly={Boolean(r.was)}
              placeholder="NAME"
              onInput={(e) => change(r.key, { name: (e.currentTarget as HTMLInputElement).value })}
            />
            <input
              aria-label={`Value of ${r.name || 'the new variable'}`}
              // A secret being typed is masked like a password; the preact types want one literal here.
              type={(r.secret ? 'password' : 'text') as 'text'}
              autoComplete="off"
              value={r.value}
              disabled={r.remove}
              placeholder={r.was?.secret ? '(unchanged secret)' : 'value'}
              onInput={(e) => change(r.key, { value: (e.currentTarget as HTMLInputElement).value })}
            />
            <label class="check">
              <input
                type="checkbox"
                checked={r.secret}
                disabled={r.remove}
                onChange={(e) => change(r.key, { secret: (e.currentTarget as HTMLInputElement).checked })}
              />{' '}
              secret
            </label>
            <label class="check">
              <input
                type="checkbox"
                checked={r.remove}
                onChange={(e) => change(r.key, { remove: (e.currentTarget as HTMLInputElement).checked })}
              />{' '}
              remove
            </label>
          </div>
        ))}
        <button type="button" class="secondary small" onClick={add}>
          Add variable
        </button>
      </fieldset>
      <ScheduleEditor
        form={schedule}
        onChange={(f) => {
          // The API's refusal was of what the form held then: an edit makes it stale.
          setSchedule(f);
          setFieldErrors({});
          setError('');
        }}
        errors={fieldErrors}
      />
      <Alert message={error} />
      <div class="actions">
        <button type="button" class="secondary" onClick={props.onCancel}>
          Cancel
        </button>
        <button type="submit" disabled={busy}>
          Review changes
        </button>
      </div>
    </form>
  );
}
