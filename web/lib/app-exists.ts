import { useEffect, useState } from 'preact/hooks';
import { admin, ApiError } from './api';

/** Apps seen to exist in this page load; a missing one is asked again (it may have been created since). */
const existing = new Set<string>();

/**
 * Whether the app of a console path exists: `true`, `false` (the server answered 404), or
 * `undefined` while asking. Any other failure counts as existing, so the page shows its own error.
 */
export function useAppExists(appId: string | undefined, enabled: boolean): boolean | undefined {
  const [missing, setMissing] = useState<string | undefined>();
  const [, setChecked] = useState(0);
  useEffect(() => {
    if (!appId || !enabled || existing.has(appId)) return;
    let current = true;
    admin('GET', `/apps/${encodeURIComponent(appId)}`).then(
      () => void existing.add(appId),
      (e) => {
        if (e instanceof ApiError && e.status === 404) {
          if (current) setMissing(appId);
        } else existing.add(appId);
      },
    ).finally(() => current && setChecked((n) => n + 1));
    return () => {
      current = false;
    };
  }, [appId, enabled]);
  if (!appId || existing.has(appId)) return true;
  return missing === appId ? false : undefined;
}
