import { html } from 'htm/preact';
import type { ComponentChildren, TargetedEvent } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { admin } from '../lib/api';
import { navigate, Link } from '../lib/router';
import type { AppView } from '../lib/types';

const appsListeners = new Set<() => void>();

/** Tells the sidebar that apps were created, renamed or deleted. */
export function appsChanged(): void {
  for (const listener of appsListeners) listener();
}

function useApps(): AppView[] | undefined {
  const [apps, setApps] = useState<AppView[] | undefined>();
  useEffect(() => {
    const load = () =>
      admin<{ apps: AppView[] }>('GET', '/apps').then(
        (r) => setApps(r.apps),
        () => setApps([]),
      );
    void load();
    appsListeners.add(load);
    return () => void appsListeners.delete(load);
  }, []);
  return apps;
}

const APP_NAV: [string, string, string][] = [
  ['', 'Overview', 'M4 5h16v5H4zM4 14h7v5H4zM14 14h6v5h-6z'],
  ['/activities', 'Live Activities', 'M3 9a4 4 0 0 1 4-4h10a4 4 0 0 1 0 8H7a4 4 0 0 1-4-4zm14 0h.01M6 18h12'],
  ['/activity-templates', 'Activity templates', 'M4 4h16v6H4zM4 14h7v6H4zM14 14h6M14 17h6M14 20h4'],
  ['/broadcasts', 'Broadcasts', 'M12 12a1 1 0 1 0 0-.01M8.5 8.5a5 5 0 0 0 0 7M15.5 8.5a5 5 0 0 1 0 7M5.6 5.6a9 9 0 0 0 0 12.8M18.4 5.6a9 9 0 0 1 0 12.8'],
  ['/devices', 'End users & devices', 'M8 3h8a1 1 0 0 1 1 1v16a1 1 0 0 1-1 1H8a1 1 0 0 1-1-1V4a1 1 0 0 1 1-1zm3 15h2'],
  ['/releases', 'Releases & templates', 'M5 4h10l4 4v12H5zM14 4v5h5M8 13h8M8 17h5'],
  ['/send', 'Send notification', 'M4 12l16-8-6 16-2-6-8-2z'],
  ['/messages', 'Messages', 'M4 20V12M9 20V8M14 20v-5M19 20V5M3 20h18'],
  ['/deliveries', 'Deliveries', 'M3 7h12v10H3zM15 10h3l3 3v4h-6M7 20a2 2 0 1 0 0-.01M17 20a2 2 0 1 0 0-.01'],
  ['/usage', 'Usage', 'M4 20V10M10 20V4M16 20v-7M22 20H2'],
  ['/webhooks', 'Webhooks', 'M8 7a4 4 0 1 1 7 2.6L12 15M6 17a3 3 0 1 0 5.2-2M17 14a3 3 0 1 1-2.8 4H9'],
];

function Icon(props: { d: string }) {
  return html`<svg class="nav-icon" viewBox="0 0 24 24" aria-hidden="true" fill="none" stroke="currentColor" stroke-width="1.8" stroke-linecap="round" stroke-linejoin="round"><path d=${props.d} /></svg>`;
}

export function Logo() {
  return html`<span class="logo" aria-hidden="true"><span class="logo-dot"></span></span>`;
}

/** The frame around every signed-in page: sidebar (a drawer on phones), app switcher, sign-out. */
export function Shell(props: { path: string; appId?: string; onSignOut: () => void; children: ComponentChildren }) {
  const apps = useApps();
  const [menuOpen, setMenuOpen] = useState(false);
  useEffect(() => setMenuOpen(false), [props.path]);
  useEffect(() => {
    if (!menuOpen) return;
    // The drawer takes the focus when it opens and Escape closes it, as a dialog would.
    document.querySelector<HTMLElement>('#sidebar select, #sidebar a')?.focus();
    const onKey = (e: KeyboardEvent) => {
      if (e.key !== 'Escape') return;
      setMenuOpen(false);
      document.querySelector<HTMLElement>('.menu-btn')?.focus();
    };
    addEventListener('keydown', onKey);
    return () => removeEventListener('keydown', onKey);
  }, [menuOpen]);
  const base = props.appId ? `/apps/${encodeURIComponent(props.appId)}` : '';
  const pathname = props.path.split('?')[0]!;
  const current = (href: string) => (href === base ? pathname === href : pathname === href || pathname.startsWith(`${href}/`));

  const switchApp = (e: TargetedEvent<HTMLSelectElement>) => {
    const id = e.currentTarget.value;
    navigate(id ? `/apps/${encodeURIComponent(id)}` : '/');
  };

  return html`<div class=${`shell${menuOpen ? ' menu-open' : ''}`}>
    <a class="skip-link" href="#main">Skip to content</a>
    <header class="topbar">
      <${Link} href="/" class="brand"><${Logo} /> Islet<//>
      <button type="button" class="icon-btn menu-btn" aria-expanded=${menuOpen} aria-controls="sidebar" onClick=${() => setMenuOpen(!menuOpen)}>
        <span class="sr-only">Menu</span><span class="burger" aria-hidden="true"></span>
      </button>
    </header>
    <aside class="sidebar" id="sidebar">
      <${Link} href="/" class="brand brand-side"><${Logo} /> Islet<//>
      <div class="switcher">
        <label for="app-switcher" class="eyebrow">App</label>
        <select id="app-switcher" value=${props.appId ?? ''} onChange=${switchApp}>
          <option value="">All apps</option>
          ${(apps ?? []).map((a) => html`<option value=${a.id}>${a.name}</option>`)}
          ${props.appId && apps && !apps.some((a) => a.id === props.appId) ? html`<option value=${props.appId}>${props.appId}</option>` : ''}
        </select>
      </div>
      <nav aria-label="Console">
        ${props.appId
          ? html`<ul class="nav">
              ${APP_NAV.map(([suffix, label, icon]) => {
                const href = base + suffix;
                return html`<li><${Link} href=${href} class="nav-link" aria-current=${current(href) ? 'page' : undefined}><${Icon} d=${icon} />${label}<//></li>`;
              })}
            </ul>`
          : html`<ul class="nav">
              <li><${Link} href="/" class="nav-link" aria-current=${pathname === '/' ? 'page' : undefined}><${Icon} d=${APP_NAV[0]![2]} />Apps<//></li>
            </ul>`}
        <ul class="nav nav-secondary">
          <li><${Link} href="/templates" class="nav-link" aria-current=${pathname === '/templates' ? 'page' : undefined}><${Icon} d="M4 4h7v7H4zM13 4h7v7h-7zM4 13h7v7H4zM13 13h7v7h-7z" />Template gallery<//></li>
          <li><${Link} href="/audit" class="nav-link" aria-current=${pathname === '/audit' ? 'page' : undefined}><${Icon} d="M9 5h10M9 12h10M9 19h10M4 5h.01M4 12h.01M4 19h.01" />Audit log<//></li>
          <li><${Link} href="/instances" class="nav-link" aria-current=${pathname === '/instances' ? 'page' : undefined}><${Icon} d="M4 5h16v5H4zM4 14h16v5H4zM8 7.5h.01M8 16.5h.01" />Instances<//></li>
          <li><a class="nav-link" href="/swagger" target="_blank" rel="noopener"><${Icon} d="M8 6l-5 6 5 6M16 6l5 6-5 6" />API docs<span class="sr-only"> (opens in a new tab)</span></a></li>
        </ul>
      </nav>
      <div class="sidebar-foot">
        <button type="button" class="btn btn-ghost btn-block" onClick=${props.onSignOut}>Sign out</button>
      </div>
    </aside>
    <div class="scrim" onClick=${() => setMenuOpen(false)} aria-hidden="true"></div>
    <main id="main" class="main" tabindex="-1">${props.children}</main>
  </div>`;
}
