import { AuthProvider, useAuth } from './lib/auth';
import { useLiveEvents } from './lib/live';
import { href, navigate, useRoute, type Route } from './lib/router';
import { useTitle } from './lib/title';
import { SignIn } from './views/SignIn';
import { Overview } from './views/Overview';
import { Jobs } from './views/Jobs';
import { JobDetail } from './views/JobDetail';
import { Nodes } from './views/Nodes';
import { NodeDetail } from './views/NodeDetail';
import { Submit } from './views/Submit';
import { Accounting } from './views/Accounting';
import { Admin, ADMIN_VIEWS } from './views/Admin';

export function App() {
  return (
    <AuthProvider>
      <Shell />
    </AuthProvider>
  );
}

const NAV = [
  { path: '/', label: 'Overview', test: 'nav-overview' },
  { path: '/jobs', label: 'Jobs', test: 'nav-jobs' },
  { path: '/nodes', label: 'Nodes', test: 'nav-nodes' },
  { path: '/accounting', label: 'Accounting', test: 'nav-accounting' },
  { path: '/submit', label: 'Submit', test: 'nav-submit' },
];

function Shell() {
  const { token, me, operator, signOut } = useAuth();
  const route = useRoute();
  useLiveEvents(!!token);
  useTitle(token ? viewTitle(route, operator) : 'Sign in');
  if (!token) return <SignIn />;
  const top = route.segments[0] ?? '';
  return (
    <div className="app">
      <a className="skip" href="#main" onClick={(e) => { e.preventDefault(); document.getElementById('main')?.focus(); }}>Skip to content</a>
      <header className="topbar">
        <a className="brand" href={href('/')}>Gantry</a>
        <nav aria-label="Main">
          {[...NAV, ...(operator || me?.coordinatorOf?.length ? [{ path: '/admin', label: 'Admin', test: 'nav-admin' }] : [])].map((n) => {
            const active = (n.path === '/' && top === '') || (n.path !== '/' && `/${top}` === n.path);
            return (
              <a key={n.path} href={href(n.path)} data-testid={n.test} aria-current={active ? 'page' : undefined}>{n.label}</a>
            );
          })}
        </nav>
        <div className="who" data-testid="whoami">
          <span data-testid="whoami-name">{me?.username ?? '…'}</span>
          {me && <span className="roles" data-testid="whoami-roles">{me.roles.join(', ')}{operator ? '' : ''}</span>}
          <button type="button" className="link" onClick={() => { signOut(); navigate('/', {}, true); }} data-testid="sign-out">Sign out</button>
        </div>
      </header>
      <main id="main" tabIndex={-1}>
        <View />
      </main>
    </div>
  );
}

function View() {
  const route = useRoute();
  const [top, id] = route.segments;
  switch (top) {
    case undefined: return <Overview />;
    case 'jobs': return id ? <JobDetail id={id} warnings={route.query.get('warnings')} /> : <Jobs query={route.query} />;
    case 'nodes': return id ? <NodeDetail name={id} /> : <Nodes query={route.query} />;
    case 'submit': return <Submit />;
    case 'accounting': return <Accounting query={route.query} />;
    case 'admin': return <Admin view={id} />;
    default: return <p>Nothing here. <a href={href('/')}>Back to the overview</a>.</p>;
  }
}

/** The title of the view a route shows ("Job 42", "Jobs"): one per view, so tabs tell them apart. */
export function viewTitle(route: Route, operator = true): string {
  const [top, id] = route.segments;
  switch (top) {
    case undefined: return 'Overview';
    case 'jobs': return id ? `Job ${id}` : 'Jobs';
    case 'nodes': return id ? `Node ${id}` : 'Nodes';
    case 'submit': return 'Submit a job';
    case 'accounting': return 'Accounting';
    // #/admin opens on reservations, or for a coordinator (no OPERATOR) on the only view they get.
    case 'admin': return operator ? ADMIN_VIEWS.find((v) => v.key === id)?.label ?? 'Reservations' : 'Accounts';
    default: return 'Not found';
  }
}
