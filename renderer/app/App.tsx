/** The app's frame: header with the live version, the core banner, the left navigation, the screen. */
import { lazy, Suspense, type MouseEvent } from 'react';
import { ChatScreen } from '../chat/ChatScreen.js';
import { CoreBanner } from './CoreBanner.js';
import { KeyPrompt } from './KeyPrompt.js';
import { Notifications } from './Notifications.js';
import { LiveStatus } from './LiveStatus.js';
import { navigate, SCREENS, useRoute, type ScreenPath } from './router.js';
import { ToggleButton } from '../ui/ToggleButton.js';
import { usePersistentFlag } from '../ui/usePersistentFlag.js';

// The first screen (Chat) is in the main bundle; the others load when first opened.
const DashboardScreen = lazy(() => import('../dashboard/DashboardScreen.js').then((m) => ({ default: m.DashboardScreen })));
const CheckpointsScreen = lazy(() => import('../checkpoints/CheckpointsScreen.js').then((m) => ({ default: m.CheckpointsScreen })));
const DataScreen = lazy(() => import('../data/DataScreen.js').then((m) => ({ default: m.DataScreen })));
const ConnectScreen = lazy(() => import('../connect/ConnectScreen.js').then((m) => ({ default: m.ConnectScreen })));
const SettingsScreen = lazy(() => import('../settings/SettingsScreen.js').then((m) => ({ default: m.SettingsScreen })));

function Screen({ path }: { path: ScreenPath }) {
  switch (path) {
    case '/dashboard':
      return <DashboardScreen />;
    case '/checkpoints':
      return <CheckpointsScreen />;
    case '/data':
      return <DataScreen />;
    case '/connect':
      return <ConnectScreen />;
    case '/settings':
      return <SettingsScreen />;
    default:
      return <ChatScreen />;
  }
}

function Nav({ route }: { route: ScreenPath }) {
  const go = (e: MouseEvent<HTMLAnchorElement>, path: ScreenPath) => {
    if (e.metaKey || e.ctrlKey || e.shiftKey || e.button !== 0) return;
    e.preventDefault();
    navigate(path);
  };
  return (
    <nav className="nav" id="main-nav" aria-label="Main">
      <ul>
        {SCREENS.map((s) => (
          <li key={s.path}>
            <a href={s.path} aria-current={route === s.path ? 'page' : undefined} onClick={(e) => go(e, s.path)}>
              {s.label}
            </a>
          </li>
        ))}
      </ul>
    </nav>
  );
}

export function App() {
  const route = useRoute();
  const [navOpen, setNavOpen] = usePersistentFlag('clawloop.nav-open', true);
  return (
    <div className={navOpen ? 'app' : 'app nav-collapsed'}>
      <a className="skip-link" href="#main" onClick={(e) => (e.preventDefault(), document.getElementById('main')?.focus())}>
        Skip to the screen
      </a>
      {route === '/chat' && (
        <a
          className="skip-link"
          href="#message-input"
          onClick={(e) => (e.preventDefault(), document.getElementById('message-input')?.focus())}
        >
          Skip to the message box
        </a>
      )}
      <header className="app-header">
        <ToggleButton open={navOpen} setOpen={setNavOpen} controls="main-nav" title={navOpen ? 'Hide the menu' : 'Show the menu'}>
          Menu
        </ToggleButton>
        <span className="brand">ClawLoop</span>
        <span className="header-spacer" />
        <LiveStatus />
      </header>
      <CoreBanner />
      <Notifications />
      <div className="app-body">
        <Nav route={route} />
        <main id="main" tabIndex={-1} className={`screen${route === '/chat' ? ' screen-chat' : ''}`}>
          <Suspense fallback={<p className="muted">Loading…</p>}>
            <Screen path={route} />
          </Suspense>
        </main>
      </div>
      <KeyPrompt />
    </div>
  );
}
