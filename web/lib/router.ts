import { html } from 'htm/preact';
import type { ComponentChildren } from 'preact';
import { useEffect, useState } from 'preact/hooks';

/** Every console URL lives under this base; the server answers the page for all of them. */
export const BASE = '/console';

const listeners = new Set<() => void>();

/** The console path of the current URL (without the base), always starting with `/`. */
export function currentPath(): string {
  const path = location.pathname.startsWith(BASE) ? location.pathname.slice(BASE.length) : location.pathname;
  return (path || '/') + location.search;
}

/** Goes to a console path (`/apps/demo`), keeping the browser's history. */
export function navigate(path: string, options: { replace?: boolean } = {}): void {
  const url = BASE + (path === '/' ? '' : path);
  if (options.replace) history.replaceState(null, '', url);
  else history.pushState(null, '', url);
  for (const listener of listeners) listener();
  window.scrollTo(0, 0);
}

/** Re-renders the caller when the URL changes; returns the console path. */
export function usePath(): string {
  const [path, setPath] = useState(currentPath());
  useEffect(() => {
    const update = () => setPath(currentPath());
    listeners.add(update);
    addEventListener('popstate', update);
    return () => {
      listeners.delete(update);
      removeEventListener('popstate', update);
    };
  }, []);
  return path;
}

/**
 * Matches a path against a pattern with `:name` segments.
 * @example match('/apps/:appId', '/apps/demo') // { appId: 'demo' }
 */
export function match(pattern: string, path: string): Record<string, string> | null {
  const [pathname] = path.split('?');
  const want = pattern.split('/').filter(Boolean);
  const got = pathname!.split('/').filter(Boolean);
  if (want.length !== got.length) return null;
  const params: Record<string, string> = {};
  for (let i = 0; i < want.length; i++) {
    if (want[i]!.startsWith(':')) params[want[i]!.slice(1)] = decodeURIComponent(got[i]!);
    else if (want[i] !== got[i]) return null;
  }
  return params;
}

/** The query parameters of a console path. */
export function searchParams(path: string): URLSearchParams {
  const at = path.indexOf('?');
  return new URLSearchParams(at === -1 ? '' : path.slice(at + 1));
}

/** An `<a>` that navigates inside the console without reloading (modifier clicks open tabs as usual). */
export function Link(props: { href: string; class?: string; children?: ComponentChildren; 'aria-current'?: string; title?: string }) {
  const onClick = (e: MouseEvent) => {
    if (e.defaultPrevented || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
    e.preventDefault();
    navigate(props.href);
  };
  return html`<a href=${BASE + (props.href === '/' ? '' : props.href)} class=${props.class} aria-current=${props['aria-current']} title=${props.title} onClick=${onClick}>${props.children}</a>`;
}
