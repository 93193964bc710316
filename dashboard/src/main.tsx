import { render } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { api, configureApi } from './api.js';
import { configureAuth, isSignedIn, onSessionChange, restoreSession, signOut } from './auth.js';
import { loadConfig } from './config.js';
import { useLoad, useRoute } from './hooks.js';
import { ActivityPage } from './pages/activity.js';
import { DeploymentPage } from './pages/deployment.js';
import { DeploymentsPage } from './pages/deployments.js';
import { KeysPage } from './pages/keys.js';
import { OperationPage } from './pages/operation.js';
import { SignInPage } from './pages/sign-in.js';
import { UsagePage } from './pages/usage.js';
// uPlot's own rules first, so that the app's stylesheet may override them; one stylesheet in all.
import 'uplot/dist/uPlot.min.css';
import './styles.css';

function Shell() {
  const route = useRoute();
  const me = useLoad(() => api('getMe'), []);
  const [section, id, sub] = route;
  const canManage = me.data?.role === 'admin';
  const page =
    section === 'keys' && id && sub === 'usage' ? (
      <UsagePage keyId={id} />
    ) : section === 'deployments' && id ? (
      <DeploymentPage deploymentId={id} canManage={canManage} />
    ) : section === 'deployments' ? (
      <DeploymentsPage canManage={canManage} />
    ) : section === 'operations' && id ? (
      <OperationPage operationId={id} canManage={canManage} />
    ) : section === 'activity' ? (
      <ActivityPage />
    ) : (
      <KeysPage canManage={canManage} />
    );
  const current = section === 'deployments' || section === 'operations' ? 'deployments' : section === 'activity' ? 'activity' : 'keys';
  return (
    <>
      <header class="top">
        <span class="brand">
          <svg class="mark" viewBox="0 0 32 32" aria-hidden="true">
            <use href="#mark" />
          </svg>
          <span>Dashboard</span>
        </span>
        <div class="org">
          <span class="label">Organization</span> <strong>{me.data?.org_id ?? '…'}</strong>
        </div>
        <nav aria-label="Main">
          <a href="#/keys" aria-current={current === 'keys' ? 'page' : undefined}>
            API keys
          </a>
          <a href="#/deployments" aria-current={current === 'deployments' ? 'page' : undefined}>
            Deployments
          </a>
          <a href="#/activity" aria-current={current === 'activity' ? 'page' : undefined}>
            Activity
          </a>
        </nav>
        <div class="user">
          <span>
            {me.data?.email} <span class="role">{me.data?.role}</span>
          </span>
          <button type="button" class="secondary" onClick={signOut}>
            Sign out
          </button>
        </div>
      </header>
      <main id="main">{page}</main>
    </>
  );
}

function App() {
  const [signedIn, setSignedIn] = useState(isSignedIn());
  useEffect(() => onSessionChange(() => setSignedIn(isSignedIn())), []);
  return signedIn ? <Shell /> : <SignInPage />;
}

async function boot(): Promise<void> {
  const root = document.getElementById('app')!;
  try {
    const config = await loadConfig();
    configureAuth(config);
    configureApi(config);
    await restoreSession();
    root.textContent = '';
    render(<App />, root);
  } catch (e) {
    root.textContent = `The dashboard could not start: ${e instanceof Error ? e.message : String(e)}`;
  }
}

void boot();
