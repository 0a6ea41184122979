/**
 * The sandboxed preload: exposes `window.clawloopDesktop` (DesktopApi) and nothing else — never
 * ipcRenderer itself. CommonJS, as sandboxed preloads must be; only `electron` may be required.
 */
import { contextBridge, ipcRenderer } from 'electron';
import type { DESKTOP_CHANNELS, DESKTOP_GLOBAL, DesktopApi } from './desktopApi.js';

// A sandboxed preload cannot load other files, so the names are restated; their types are the
// contract's literal strings, so a mismatch does not compile.
const CHANNELS: typeof DESKTOP_CHANNELS = {
  chooseModelFolder: 'clawloop:choose-model-folder',
  chooseExportFolder: 'clawloop:choose-export-folder',
  openFolder: 'clawloop:open-folder',
  apiKey: 'clawloop:api-key',
};
const GLOBAL: typeof DESKTOP_GLOBAL = 'clawloopDesktop';

const api: DesktopApi = {
  chooseModelFolder: () => ipcRenderer.invoke(CHANNELS.chooseModelFolder),
  chooseExportFolder: () => ipcRenderer.invoke(CHANNELS.chooseExportFolder),
  openFolder: (path: string) => ipcRenderer.invoke(CHANNELS.openFolder, path),
  apiKey: () => ipcRenderer.invoke(CHANNELS.apiKey),
};

contextBridge.exposeInMainWorld(GLOBAL, api);
