import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { readEvents, type SseEvent } from './sse';

export interface Loaded<T> {
  data?: T;
  error?: Error;
  loading: boolean;
  reload(): void;
}

/** Runs `load` when `deps` change (and shortly after reload()); the last answer wins, earlier ones are aborted. */
export function useLoad<T>(load: (signal: AbortSignal) => Promise<T>, deps: unknown[]): Loaded<T> {
  const [state, setState] = useState<{ data?: T; error?: Error; loading: boolean }>({ loading: true });
  const [tick, setTick] = useState(0);
  useEffect(() => {
    const ctrl = new AbortController();
    setState((s) => ({ ...s, loading: true }));
    load(ctrl.signal).then(
      (data) => { if (!ctrl.signal.aborted) setState({ data, loading: false }); },
      (error) => { if (!ctrl.signal.aborted) setState((s) => ({ ...s, error, loading: false })); },
    );
    return () => ctrl.abort();
  }, [...deps, tick]);
  // a burst of events (a plan of many steps) is one reload, not one per event
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  useEffect(() => () => clearTimeout(timer.current), []);
  const reload = useCallback(() => {
    clearTimeout(timer.current);
    timer.current = setTimeout(() => setTick((t) => t + 1), 200);
  }, []);
  return { ...state, reload };
}

/** Follows an SSE path while the component is shown (null: nothing to follow). */
export function useEvents(path: string | null, onEvent: (e: SseEvent) => void) {
  const handler = useRef(onEvent);
  handler.current = onEvent;
  useEffect(() => {
    if (!path) return;
    const ctrl = new AbortController();
    readEvents(path, (e) => handler.current(e), ctrl.signal).catch(() => undefined);
    return () => ctrl.abort();
  }, [path]);
}

/** Runs an action of a button: busy while it runs, its error kept for display. */
export function useAction() {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const run = useCallback(async (fn: () => Promise<unknown>) => {
    setBusy(true);
    setError(null);
    try { await fn(); } catch (err) { setError((err as Error).message); } finally { setBusy(false); }
  }, []);
  return { busy, error, run };
}
