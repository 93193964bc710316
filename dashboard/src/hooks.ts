import { useEffect, useState } from 'preact/hooks';

/** The hash route (`#/keys/key_…/usage`) as path segments; hash routes need no rewrite on S3 or locally. */
export function useRoute(): string[] {
  const read = () => location.hash.replace(/^#\/?/, '').split('/').filter(Boolean).map(decodeURIComponent);
  const [route, setRoute] = useState(read);
  useEffect(() => {
    const on = () => setRoute(read());
    addEventListener('hashchange', on);
    return () => removeEventListener('hashchange', on);
  }, []);
  return route;
}

export interface Loaded<T> {
  data?: T;
  error?: string;
  reload: () => void;
}

/**
 * Loads with `load` and, while `everyMs` is set, again at that interval (the live
 * views). A failed poll keeps the last data and shows the error.
 */
export function useLoad<T>(load: () => Promise<T>, deps: unknown[], everyMs?: number): Loaded<T> {
  const [state, setState] = useState<{ data?: T; error?: string }>({});
  const [tick, setTick] = useState(0);
  useEffect(() => {
    let live = true;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const run = () =>
      load()
        .then((data) => live && setState({ data }))
        .catch((e: unknown) => live && setState((s) => ({ data: s.data, error: e instanceof Error ? e.message : String(e) })))
        .finally(() => {
          if (live && everyMs) timer = setTimeout(run, everyMs);
        });
    void run();
    return () => {
      live = false;
      clearTimeout(timer);
    };
  }, [...deps, tick, everyMs]);
  return { ...state, reload: () => setTick((t) => t + 1) };
}

/** A time as the reader's locale writes it, with its time zone (`Nov 24, 2026, 9:15:02 AM UTC`). */
export const formatTime = (iso: string | null | undefined): string =>
  iso ? new Date(iso).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'long' }) : '—';

/** A duration in milliseconds, as short as it reads well: `850 ms`, `4.2 s`, `3 min 5 s`. */
export function formatDuration(ms: number | null | undefined): string {
  if (ms === null || ms === undefined || ms < 0) return '—';
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  const s = Math.round(ms / 1000);
  return `${Math.floor(s / 60)} min ${s % 60} s`;
}

/** An error as the user reads it: the API's message, else what was thrown. */
export const messageOf = (e: unknown): string => (e instanceof Error ? e.message : String(e));
