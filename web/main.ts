import { html } from 'htm/preact';
import { render } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { Toasts, toast } from './components/feedback';
import { Shell } from './components/shell';
import { Spinner } from './components/ui';
import { onSignedOut, session } from './lib/api';
import { useAppExists } from './lib/app-exists';
import { errorText } from './lib/hooks';
import { navigate, usePath } from './lib/router';
import { routeFor } from './routes';
import { AppNotFoundPage } from './pages/not-found';
import { SignInPage } from './pages/sign-in';

type Auth = { state: 'loading' } | { state: 'signed-out'; expired?: boolean } | { state: 'signed-in' };

function App() {
  const [auth, setAuth] = useState<Auth>({ state: 'loading' });
  const path = usePath();
  const route = routeFor(path);
  // An unknown app gets a not-found page, not its pages inside its navigation as if it existed.
  const appExists = useAppExists(route.appId, auth.state === 'signed-in');

  useEffect(() => {
    session.load().then(
      (info) => setAuth(info ? { state: 'signed-in' } : { state: 'signed-out' }),
      () => setAuth({ state: 'signed-out' }),
    );
    return onSignedOut(() => setAuth({ state: 'signed-out', expired: true }));
  }, []);

  const title = appExists === false ? 'App not found' : route.title;
  useEffect(() => {
    document.title = `${title} · Islet`;
  }, [title]);

  if (auth.state === 'loading') return html`<${Spinner} />`;
  if (auth.state === 'signed-out') {
    return html`<${SignInPage} expired=${auth.expired} onSignedIn=${() => setAuth({ state: 'signed-in' })} /><${Toasts} />`;
  }

  const signOut = async () => {
    try {
      await session.signOut();
    } catch (e) {
      toast(errorText(e), 'error');
    }
    setAuth({ state: 'signed-out' });
    navigate('/', { replace: true });
  };
  if (appExists === false) return html`<${Shell} path=${path} onSignOut=${signOut}><${AppNotFoundPage} appId=${route.appId!} /><//><${Toasts} />`;
  const view = appExists === undefined ? html`<${Spinner} />` : route.view;
  return html`<${Shell} path=${path} appId=${route.appId} onSignOut=${signOut}>${view}<//><${Toasts} />`;
}

render(html`<${App} />`, document.getElementById('app')!);
