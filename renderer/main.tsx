/** The app's entry: takes the API key from the desktop shell, wires the services, renders the app. */
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { dropKeyFragment, type KeyValueStorage } from './api/apiKey.js';
import { App } from './app/App.js';
import { desktop } from './app/desktop.js';
import { createServices } from './app/services.js';
import { ServicesContext } from './app/servicesContext.js';
import './ui/theme.css';

function storage(): KeyValueStorage | null {
  try {
    const s = window.localStorage;
    s.getItem('clawloop.probe');
    return s;
  } catch {
    return null; // storage blocked: nothing persists, everything else works
  }
}

/** A random id; crypto.randomUUID needs a secure context, getRandomValues does not. */
function newId(): string {
  const b = crypto.getRandomValues(new Uint8Array(12));
  return `app-${Array.from(b, (x) => x.toString(16).padStart(2, '0')).join('')}`;
}

const services = createServices({ storage: storage(), frame: (fn) => requestAnimationFrame(fn), newId });
// Old `#key=` links are not accepted (the key would stay in the history): the key leaves the address bar unused.
const rest = dropKeyFragment(window.location.hash);
if (rest !== null) window.history.replaceState(null, '', window.location.pathname + window.location.search + rest);
// The desktop app hands the core's key over its preload; a browser is signed in by its cookie and proof.
const shell = desktop();
if (shell) {
  void shell
    .apiKey()
    .then((k) => k && services.keys.set(k))
    .catch(() => {}) // an older shell without it: the app asks for the key on the first 401
    .finally(() => services.start());
} else services.start();

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <ServicesContext.Provider value={services}>
      <App />
    </ServicesContext.Provider>
  </StrictMode>,
);
