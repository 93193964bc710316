import { useState } from 'preact/hooks';
import { Alert } from '../alert.js';
import { api } from '../api.js';
import { formatDuration, formatTime, useLoad } from '../hooks.js';
import { Table } from '../table.js';

/** A key's usage log, newest first; the first page follows new requests as they are logged. */
export function UsagePage({ keyId }: { keyId: string }) {
  const [status, setStatus] = useState('');
  const [cursors, setCursors] = useState<string[]>([]);
  const cursor = cursors.at(-1);
  const keys = useLoad(() => api('listKeys'), []);
  const page = useLoad(
    () => api('listKeyUsage', { params: { key_id: keyId }, query: { per_page: 25, status, cursor } }),
    [keyId, status, cursor],
    cursor ? undefined : 5000,
  );
  const key = keys.data?.items.find((k) => k.id === keyId);
  const filter = (e: Event) => {
    e.preventDefault();
    setStatus(String(new FormData(e.currentTarget as HTMLFormElement).get('status') ?? '').trim());
    setCursors([]);
  };
  return (
    <>
      <p>
        <a href="#/keys">← API keys</a>
      </p>
      <h1>
        Usage of {key?.name ?? keyId} {key && <code>{key.hint}</code>}
      </h1>
      {key?.expires_at && (
        <p class="note">
          {Date.parse(key.expires_at) > Date.now() ? 'Works until' : 'Expired'} {formatTime(key.expires_at)}
          {key.revoked_at ? `; revoked ${formatTime(key.revoked_at)}` : ''}.
        </p>
      )}
      <form class="filter" onSubmit={filter}>
        <label for="status-filter">Status code</label>
        <input id="status-filter" name="status" inputMode="numeric" pattern="[1-5][0-9]{2}" placeholder="e.g. 401" size={6} />
        <button type="submit">Filter</button>
        <button type="button" class="secondary" onClick={() => page.reload()}>
          Refresh
        </button>
      </form>
      <Alert message={page.error} />
      <Table
        caption="Requests made with the key, newest first"
        columns={['Time', 'Request', 'Status', 'Duration', 'Client', 'Request id']}
        empty={page.data?.items.length === 0 && `No requests${status ? ` with status ${status}` : ''} yet.`}
      >
        {page.data?.items.map((u) => (
          <tr key={u.request_id + u.at}>
            <td class="when">{formatTime(u.at)}</td>
            <td class="request" title={`Route: ${u.method} ${u.route}`}>
              {u.method} <code>{u.path}</code>
              {u.deprecated && (
                <span class="badge deprecated" title="This request used a deprecated feature: see the API's changelog">
                  deprecated
                </span>
              )}
            </td>
            <td>
              <span class={`badge ${u.status < 400 ? 'ok' : 'bad'}`}>{u.status}</span>
            </td>
            <td>{formatDuration(u.duration_ms)}</td>
            <td>
              <code>{u.client_address ?? '—'}</code>
            </td>
            <td>
              <code>{u.request_id}</code>
            </td>
          </tr>
        ))}
      </Table>
      <div class="actions">
        {cursors.length > 0 && (
          <button type="button" class="secondary" onClick={() => setCursors([])}>
            Newest
          </button>
        )}
        {page.data?.next_cursor && (
          <button type="button" class="secondary" onClick={() => setCursors([...cursors, page.data!.next_cursor!])}>
            Older
          </button>
        )}
      </div>
    </>
  );
}
