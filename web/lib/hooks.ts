import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { ApiError } from './api';

export interface Loaded<T> {
  data: T | undefined;
  error: string | undefined;
  loading: boolean;
  /** Loads again; without `quiet` the old data is kept on screen meanwhile anyway. */
  reload: () => Promise<void>;
}

/**
 * Loads data when the component mounts and whenever `deps` change; answers that arrive after a
 * newer request started are dropped, so fast filter changes cannot show stale rows.
 * `refreshMs` polls (for deliveries that change on their own).
 * @example const apps = useLoad(() => admin('GET', '/apps'), []);
 */
export function useLoad<T>(load: () => Promise<T>, deps: unknown[], refreshMs?: number): Loaded<T> {
  const [state, setState] = useState<{ data?: T; error?: string; loading: boolean }>({ loading: true });
  const generation = useRef(0);
  const loader = useRef(load);
  loader.current = load;

  const reload = useCallback(async () => {
    const mine = ++generation.current;
    setState((s) => ({ ...s, loading: true }));
    try {
      const data = await loader.current();
      if (mine === generation.current) setState({ data, loading: false });
    } catch (e) {
      if (mine === generation.current) setState((s) => ({ data: s.data, error: errorText(e), loading: false }));
    }
  }, []);

  useEffect(() => {
    void reload();
    if (!refreshMs) return;
    const timer = setInterval(() => {
      if (document.visibilityState === 'visible') void reload();
    }, refreshMs);
    return () => clearInterval(timer);
  }, deps);

  return { data: state.data, error: state.error, loading: state.loading, reload };
}

/** A message for people from anything thrown. */
export function errorText(e: unknown): string {
  if (e instanceof ApiError) return e.detail;
  return e instanceof Error ? e.message : String(e);
}

/**
 * Runs an action with a busy flag and its error, for buttons and forms.
 * @example const save = useAction(async () => admin('PATCH', …)); <button disabled=${save.busy} onClick=${save.run}>
 */
export function useAction<A extends unknown[]>(action: (...args: A) => Promise<unknown>) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | undefined>();
  const run = async (...args: A): Promise<boolean> => {
    setBusy(true);
    setError(undefined);
    try {
      await action(...args);
      return true;
    } catch (e) {
      setError(errorText(e));
      return false;
    } finally {
      setBusy(false);
    }
  };
  return { busy, error, run, setError };
}

/**
 * A dialog's open state. Each opening has a new `round`: used as the dialog form's key, it makes
 * the form start fresh every time (no value left over from the last use).
 * @example const add = useDialogState(); <AddDialog key=${add.round} open=${add.open} onClose=${add.close} />
 */
export function useDialogState() {
  const [round, setRound] = useState(0);
  const [open, setOpen] = useState(false);
  return { open, round, show: () => (setRound((r) => r + 1), setOpen(true)), close: () => setOpen(false) };
}
