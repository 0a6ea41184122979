/**
 * Every security setting of the shell in one place (Electron's security checklist): isolated,
 * sandboxed pages without Node; navigation and new windows locked to the app's origin (other
 * http(s) links open in the system browser); no permissions granted; no <webview>.
 */
import { app, shell, type WebContents, type WebPreferences } from 'electron';

export function webPreferences(preload: string): WebPreferences {
  return {
    preload,
    contextIsolation: true,
    sandbox: true,
    nodeIntegration: false,
    nodeIntegrationInWorker: false,
    webviewTag: false,
    spellcheck: true,
  };
}

function sameOrigin(url: string, origin: string): boolean {
  try {
    return new URL(url).origin === origin;
  } catch {
    return false;
  }
}

function openOutside(url: string): void {
  if (/^https?:\/\//i.test(url)) void shell.openExternal(url);
}

/** Applies the locks to every web contents the app creates, for the app at `origin()`. */
export function lockDown(origin: () => string | null): void {
  app.on('web-contents-created', (_e, contents: WebContents) => {
    contents.on('will-navigate', (event, url) => {
      const o = origin();
      if (o && sameOrigin(url, o)) return;
      event.preventDefault();
      openOutside(url);
    });
    contents.on('will-redirect', (event, url) => {
      const o = origin();
      if (!o || !sameOrigin(url, o)) event.preventDefault();
    });
    contents.setWindowOpenHandler(({ url }) => {
      openOutside(url);
      return { action: 'deny' };
    });
    contents.on('will-attach-webview', (event) => event.preventDefault());
    contents.session.setPermissionRequestHandler((_wc, _permission, callback) => callback(false));
    contents.session.setPermissionCheckHandler(() => false);
  });
}

/** True when an IPC call comes from the app's own page. */
export function fromApp(frameUrl: string | null | undefined, origin: string | null): boolean {
  return !!frameUrl && !!origin && sameOrigin(frameUrl, origin);
}
