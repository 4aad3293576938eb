import { html } from 'htm/preact';
import { render } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { Toasts, toast } from './components/feedback';
import { Shell } from './components/shell';
import { Spinner } from './components/ui';
import { onSignedOut, session } from './lib/api';
import { errorText } from './lib/hooks';
import { navigate, usePath } from './lib/router';
import { routeFor } from './routes';
import { SignInPage } from './pages/sign-in';

type Auth = { state: 'loading' } | { state: 'signed-out'; expired?: boolean } | { state: 'signed-in' };

function App() {
  const [auth, setAuth] = useState<Auth>({ state: 'loading' });
  const path = usePath();

  useEffect(() => {
    session.load().then(
      (info) => setAuth(info ? { state: 'signed-in' } : { state: 'signed-out' }),
      () => setAuth({ state: 'signed-out' }),
    );
    return onSignedOut(() => setAuth({ state: 'signed-out', expired: true }));
  }, []);

  useEffect(() => {
    const { title } = routeFor(path);
    document.title = title ? `${title} · Islet` : 'Islet console';
  }, [path]);

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
  const route = routeFor(path);
  return html`<${Shell} path=${path} appId=${route.appId} onSignOut=${signOut}>${route.view}<//><${Toasts} />`;
}

render(html`<${App} />`, document.getElementById('app')!);
