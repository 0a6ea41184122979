/**
 * The desktop app's main process, kept small: one instance; start the core (or use one already
 * serving the data folder); open a locked-down window on the core's URL; stop the core on quit.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { app, BrowserWindow, dialog } from 'electron';
import { coreApiKey, dataDir, runningCoreUrl } from './corePaths.js';
import { DesktopCore } from './desktopCore.js';
import { registerIpc } from './ipc.js';
import { lockDown, webPreferences } from './security.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '..', '..');
const log = (line: string) => console.log(line);

let core: DesktopCore | null = null;
let origin: string | null = null;
let window: BrowserWindow | null = null;
let quitting = false;

function openWindow(url: string): void {
  window = new BrowserWindow({
    width: 1280,
    height: 840,
    minWidth: 800,
    minHeight: 560,
    show: false,
    title: 'ClawLoop',
    autoHideMenuBar: true,
    webPreferences: webPreferences(path.join(here, 'preload.cjs')),
  });
  window.once('ready-to-show', () => window?.show());
  window.on('closed', () => (window = null));
  void window.loadURL(url);
}

async function startCore(): Promise<string> {
  const dir = dataDir();
  const running = runningCoreUrl(dir);
  if (running) {
    log(`clawloop desktop: using the core already serving ${dir} at ${running}`);
    return running;
  }
  const extraArgs = (process.env.CLAWLOOP_SERVE_ARGS ?? '').split(/\s+/).filter(Boolean);
  core = await DesktopCore.start({ entry: path.join(root, 'bin', 'clawloop.js'), dataDir: dir, extraArgs, log });
  return core.origin;
}

async function ready(): Promise<void> {
  lockDown(() => origin);
  registerIpc(
    () => origin,
    () => coreApiKey(dataDir()),
  );
  try {
    origin = await startCore();
  } catch (err) {
    dialog.showErrorBox(
      'ClawLoop could not start its core',
      `${(err as Error).message}\n\nRun \`npx clawloop serve\` in a terminal to see why.`,
    );
    app.exit(1);
    return;
  }
  // The page asks for the core's key over the preload (window.clawloopDesktop.apiKey): never in a URL.
  openWindow(`${origin}/`);
}

if (!app.requestSingleInstanceLock()) {
  app.quit();
} else {
  app.on('second-instance', () => {
    if (!window) return;
    if (window.isMinimized()) window.restore();
    window.focus();
  });
  app.on('window-all-closed', () => app.quit());
  app.on('activate', () => {
    if (!window && origin) openWindow(`${origin}/`);
  });
  app.on('before-quit', (event) => {
    if (!core || quitting) return;
    // Hold the quit until the core has finished its writes.
    event.preventDefault();
    quitting = true;
    void core.stop().finally(() => {
      core = null;
      app.quit();
    });
  });
  void app.whenReady().then(ready);
}
