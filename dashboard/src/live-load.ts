import { useEffect, useState } from 'preact/hooks';
import type { Loaded } from './hooks.js';

/**
 * As useLoad, for a view that follows live data: it loads at once, then again every `everyMs`
 * while the tab is visible. A hidden tab asks nothing (no request for a page nobody reads,
 * decision 292); it loads again as soon as it is shown, then keeps the interval. A failed
 * load keeps the last data and shows the error.
 */
export function useLiveLoad<T>(load: () => Promise<T>, deps: unknown[], everyMs: number): Loaded<T> {
  const [state, setState] = useState<{ data?: T; error?: string }>({});
  const [tick, setTick] = useState(0);
  useEffect(() => {
    let live = true;
    let busy = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const schedule = () => {
      clearTimeout(timer);
      if (live && !document.hidden) timer = setTimeout(run, everyMs);
    };
    const run = () => {
      busy = true;
      load()
        .then((data) => live && setState({ data }))
        .catch((e: unknown) => live && setState((s) => ({ data: s.data, error: e instanceof Error ? e.message : String(e) })))
        .finally(() => {
          busy = false;
          schedule();
        });
    };
    const onVisibility = () => {
      if (document.hidden) clearTimeout(timer);
      else if (!busy) run();
    };
    document.addEventListener('visibilitychange', onVisibility);
    run();
    return () => {
      live = false;
      clearTimeout(timer);
      document.removeEventListener('visibilitychange', onVisibility);
    };
  }, [...deps, tick, everyMs]);
  return { ...state, reload: () => setTick((t) => t + 1) };
}
