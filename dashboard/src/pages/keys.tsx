import { useEffect, useRef, useState } from 'preact/hooks';
import type { CreatedKey, KeySummary, RotatedKey } from '../../../contract/dashboard-schemas.js';
import { SCOPES } from '../../../contract/vocabulary.js';
import { Alert } from '../alert.js';
import { api } from '../api.js';
import { formatTime, useLoad } from '../hooks.js';
import { Table } from '../table.js';

function keyState(k: KeySummary): 'revoked' | 'expired' | 'active' {
  if (k.revoked_at) return 'revoked';
  if (k.expires_at && Date.parse(k.expires_at) <= Date.now()) return 'expired';
  return 'active';
}

/**
 * The key that replaced a key in its rotation grace: a rotation gives the new key the old
 * one's name and the old one an expiry after the new one's creation. The summary names no
 * successor, so this is read from the list; the earliest such key is the successor.
 */
function successorOf(k: KeySummary, all: readonly KeySummary[]): KeySummary | undefined {
  if (keyState(k) !== 'active' || !k.expires_at) return undefined;
  return all
    .filter((s) => s.id !== k.id && s.name === k.name && s.created_at > k.created_at && s.created_at <= k.expires_at!)
    .sort((a, b) => a.created_at.localeCompare(b.created_at))[0];
}

function CreateKeyForm({ onCreated }: { onCreated: (k: CreatedKey) => void }) {
  const [error, setError] = useState('');
  const submit = async (e: Event) => {
    e.preventDefault();
    const form = e.currentTarget as HTMLFormElement;
    const data = new FormData(form);
    const ticked = data.getAll('scopes');
    const scopes = SCOPES.filter((s) => ticked.includes(s));
    const expires = String(data.get('expires') ?? '');
    setError('');
    try {
      const created = await api('createKey', {
        body: {
          name: String(data.get('name')),
          ...(scopes.length && scopes.length < SCOPES.length ? { scopes } : {}),
          ...(expires ? { expires_at: new Date(`${expires}T00:00:00`).toISOString() } : {}),
        },
      });
      form.reset();
      onCreated(created);
    } catch (err) {
      setError(err instanceof Error ? err.message : String(err));
    }
  };
  return (
    <form class="panel create-key" onSubmit={submit}>
      <h2>Create a key</h2>
      <label for="key-name">Name</label>
      <input id="key-name" name="name" required maxLength={64} placeholder="ci-pipeline" />
      <fieldset>
        <legend>Scopes (all when none is ticked)</legend>
        {SCOPES.map((s) => (
          <label key={s} class="check">
            <input type="checkbox" name="scopes" value={s} /> {s}
          </label>
        ))}
      </fieldset>
      <label for="key-expires">Expires on (optional)</label>
      <input id="key-expires" name="expires" type="date" />
      <Alert message={error} />
      <button type="submit">Create key</button>
    </form>
  );
}

function NewKey({ created, onDone }: { created: CreatedKey; onDone: () => void }) {
  const [copied, setCopied] = useState(false);
  const copy = async () => {
    await navigator.clipboard.writeText(created.key);
    setCopied(true);
  };
  return (
    <section class="panel new-key" aria-labelledby="new-key-title">
      <h2 id="new-key-title">
        Key “{created.name}” {'rotated_from' in created ? 'rotated' : 'created'}
      </h2>
      <p>Copy it now: it is shown this once, and only its hash is stored.</p>
      <div class="copy-row">
        <input aria-label="New API key" readOnly value={created.key} onFocus={(e) => (e.currentTarget as HTMLInputElement).select()} />
        <button type="button" onClick={copy}>
          Copy
        </button>
      </div>
      <p role="status" class="note">
        {copied ? 'Copied to the clipboard.' : ''}
      </p>
      <button type="button" class="secondary" onClick={onDone}>
        Done
      </button>
    </section>
  );
}

function RevokeDialog({ target, onClose }: { target: KeySummary | null; onClose: (revoked: boolean) => void }) {
  const ref = useRef<HTMLDialogElement>(null);
  const [error, setError] = useState('');
  useEffect(() => {
    if (target && !ref.current?.open) ref.current?.showModal();
  }, [target]);
  const close = (revoked: boolean) => {
    ref.current?.close();
    setError('');
    onClose(revoked);
  };
  const revoke = async () => {
    try {
      await api('revokeKey', { params: { key_id: target!.id } });
      close(true);
    } catch (err) {
      setError(err instanceof Error ? err.message : String(err));
    }
  };
  return (
    <dialog ref={ref} aria-labelledby="revoke-title" onCancel={() => close(false)}>
      <h2 id="revoke-title">Revoke “{target?.name}”?</h2>
      <p>Requests with this key ({target?.hint}) are refused from now on. A revoked key cannot be restored.</p>
      <Alert message={error} />
      <div class="actions">
        <button type="button" class="secondary" onClick={() => close(false)}>
          Cancel
        </button>
        <button type="button" class="danger" onClick={revoke}>
          Revoke key
        </button>
      </div>
    </dialog>
  );
}

/** Decision 47's grace periods to choose from (seconds): how long the old key keeps working. */
const GRACE_CHOICES = [
  [0, 'No grace: the old key stops now'],
  [3_600, '1 hour'],
  [86_400, '1 day'],
  [604_800, '7 days'],
] as const;

function RotateDialog({ target, onClose }: { target: KeySummary | null; onClose: (rotated: RotatedKey | null) => void }) {
  const ref = useRef<HTMLDialogElement>(null);
  const [error, setError] = useState('');
  const [grace, setGrace] = useState(86_400);
  useEffect(() => {
    if (target && !ref.current?.open) ref.current?.showModal();
  }, [target]);
  const close = (rotated: RotatedKey | null) => {
    ref.current?.close();
    setError('');
    onClose(rotated);
  };
  const rotate = async () => {
    try {
      close(await api('rotateKey', { params: { key_id: target!.id }, body: { grace_seconds: grace } }));
    } catch (err) {
      setError(err instanceof Error ? err.message : String(err));
    }
  };
  return (
    <dialog ref={ref} aria-labelledby="rotate-title" onCancel={() => close(null)}>
      <h2 id="rotate-title">Rotate “{target?.name}”?</h2>
      <p>
        A new key with the same name, scopes and expiry replaces this one ({target?.hint}). Both work until the grace period ends; then
        requests with the old key are refused.
      </p>
      <label for="rotate-grace">Old key keeps working for</label>
      <select id="rotate-grace" value={grace} onChange={(e) => setGrace(Number((e.currentTarget as HTMLSelectElement).value))}>
        {GRACE_CHOICES.map(([seconds, label]) => (
          <option key={seconds} value={seconds}>
            {label}
          </option>
        ))}
      </select>
      <Alert message={error} />
      <div class="actions">
        <button type="button" class="secondary" onClick={() => close(null)}>
          Cancel
        </button>
        <button type="button" onClick={rotate}>
          Rotate key
        </button>
      </div>
    </dialog>
  );
}

export function KeysPage({ canManage }: { canManage: boolean }) {
  const keys = useLoad(() => api('listKeys'), []);
  const [created, setCreated] = useState<CreatedKey | null>(null);
  const [revoking, setRevoking] = useState<KeySummary | null>(null);
  const [rotating, setRotating] = useState<KeySummary | null>(null);
  return (
    <>
      <h1>API keys</h1>
      {!canManage && <p class="note">You can see the organization's keys; an admin creates, rotates and revokes them.</p>}
      {canManage &&
        (created ? (
          <NewKey created={created} onDone={() => setCreated(null)} />
        ) : (
          <CreateKeyForm
            onCreated={(k) => {
              setCreated(k);
              keys.reload();
            }}
          />
        ))}
      <Alert message={keys.error} />
      <Table
        caption="API keys of the organization"
        columns={['Name', 'Key', 'Scopes', 'Created', 'Expires', 'Last used', 'Status', canManage && 'Actions']}
        empty={keys.data?.items.length === 0 && 'No keys yet.'}
      >
        {keys.data?.items.map((k) => (
          <tr key={k.id} data-key-id={k.id}>
            <th scope="row">
              <a href={`#/keys/${k.id}/usage`}>{k.name}</a>
            </th>
            <td>
              <code class="hint">{k.hint}</code>
            </td>
            <td>
              <ul class="scopes" aria-label="Scopes">
                {k.scopes.map((s) => (
                  <li key={s} class="badge scope">
                    {s}
                  </li>
                ))}
              </ul>
            </td>
            <td class="when">{formatTime(k.created_at)}</td>
            <td class="when">{k.expires_at ? formatTime(k.expires_at) : 'never'}</td>
            <td class="when">{formatTime(k.last_used_at)}</td>
            <td>
              {successorOf(k, keys.data!.items) ? (
                <>
                  <span class="badge rotating">rotated</span>{' '}
                  <span class="note">
                    → <code class="hint">…{successorOf(k, keys.data!.items)!.hint.split('…').pop()}</code>, expiring
                  </span>
                </>
              ) : (
                <span class={`badge ${keyState(k)}`}>{keyState(k)}</span>
              )}
            </td>
            {canManage && (
              <td class="row-actions">
                {keyState(k) === 'active' && !successorOf(k, keys.data!.items) && (
                  <button type="button" class="secondary small" onClick={() => setRotating(k)} aria-label={`Rotate ${k.name}`}>
                    Rotate
                  </button>
                )}
                {keyState(k) !== 'revoked' && (
                  <button type="button" class="danger small" onClick={() => setRevoking(k)} aria-label={`Revoke ${k.name}`}>
                    Revoke
                  </button>
                )}
              </td>
            )}
          </tr>
        ))}
      </Table>
      <RotateDialog
        target={rotating}
        onClose={(rotated) => {
          setRotating(null);
          if (rotated) {
            setCreated(rotated);
            keys.reload();
          }
        }}
      />
      <RevokeDialog
        target={revoking}
        onClose={(revoked) => {
          setRevoking(null);
          if (revoked) keys.reload();
        }}
      />
    </>
  );
}
