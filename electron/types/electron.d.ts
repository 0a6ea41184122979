/**
 * The part of Electron's API the shell uses, declared here because the `electron` package (whose
 * install downloads a binary from GitHub) cannot be installed on every build machine, and the shell
 * must type-check everywhere. The signatures are copied from Electron 45's own electron.d.ts; where
 * the package is installed, scripts/build-app.mjs also checks the shell against the real one.
 */
/* eslint-disable @typescript-eslint/no-explicit-any */
import type { EventEmitter } from 'node:events';
import type { Readable } from 'node:stream';

export interface IpcMainInvokeEvent {
  sender: WebContents;
  senderFrame: { url: string } | null;
}

export interface Event {
  preventDefault(): void;
}

export interface HandlerDetails {
  url: string;
}

export interface Session {
  setPermissionRequestHandler(
    handler: ((webContents: WebContents, permission: string, callback: (granted: boolean) => void) => void) | null,
  ): void;
  setPermissionCheckHandler(handler: ((webContents: WebContents | null, permission: string) => boolean) | null): void;
}

export interface WebContents extends EventEmitter {
  session: Session;
  getURL(): string;
  setWindowOpenHandler(handler: (details: HandlerDetails) => { action: 'deny' } | { action: 'allow' }): void;
  on(event: 'will-navigate' | 'will-redirect', listener: (event: Event, url: string) => void): this;
  on(event: 'will-attach-webview', listener: (event: Event) => void): this;
  on(event: string, listener: (...args: any[]) => void): this;
}

export interface WebPreferences {
  preload?: string;
  contextIsolation?: boolean;
  sandbox?: boolean;
  nodeIntegration?: boolean;
  nodeIntegrationInWorker?: boolean;
  webviewTag?: boolean;
  spellcheck?: boolean;
}

export interface BrowserWindowConstructorOptions {
  width?: number;
  height?: number;
  minWidth?: number;
  minHeight?: number;
  show?: boolean;
  title?: string;
  backgroundColor?: string;
  autoHideMenuBar?: boolean;
  webPreferences?: WebPreferences;
}

export declare class BrowserWindow extends EventEmitter {
  constructor(options?: BrowserWindowConstructorOptions);
  static getAllWindows(): BrowserWindow[];
  webContents: WebContents;
  loadURL(url: string): Promise<void>;
  show(): void;
  focus(): void;
  restore(): void;
  isMinimized(): boolean;
  isDestroyed(): boolean;
}

export interface OpenDialogOptions {
  title?: string;
  defaultPath?: string;
  buttonLabel?: string;
  properties?: Array<'openFile' | 'openDirectory' | 'createDirectory' | 'showHiddenFiles'>;
}

export interface App extends EventEmitter {
  isPackaged: boolean;
  requestSingleInstanceLock(): boolean;
  whenReady(): Promise<void>;
  quit(): void;
  exit(exitCode?: number): void;
  getAppPath(): string;
  getPath(name: 'home' | 'userData' | 'logs'): string;
  on(event: 'before-quit' | 'will-quit', listener: (event: Event) => void): this;
  on(event: 'second-instance' | 'window-all-closed' | 'activate', listener: (...args: any[]) => void): this;
  on(event: 'web-contents-created', listener: (event: Event, contents: WebContents) => void): this;
}

export interface UtilityProcess extends EventEmitter {
  pid: number | undefined;
  stdout: Readable | null;
  stderr: Readable | null;
  kill(): boolean;
  on(event: 'exit', listener: (code: number) => void): this;
  on(event: 'spawn', listener: () => void): this;
  once(event: 'exit', listener: (code: number) => void): this;
}

export interface ForkOptions {
  env?: NodeJS.ProcessEnv;
  cwd?: string;
  stdio?: 'pipe' | 'ignore' | 'inherit';
  serviceName?: string;
}

export declare const app: App;
export declare const dialog: {
  showOpenDialog(window: BrowserWindow, options: OpenDialogOptions): Promise<{ canceled: boolean; filePaths: string[] }>;
  showErrorBox(title: string, content: string): void;
};
export declare const shell: {
  /** Opens the file or folder with the desktop's default manner; resolves with an error message, or '' on success. */
  openPath(path: string): Promise<string>;
  openExternal(url: string): Promise<void>;
};
export declare const ipcMain: {
  handle(channel: string, listener: (event: IpcMainInvokeEvent, ...args: any[]) => Promise<unknown> | unknown): void;
};
export declare const utilityProcess: {
  fork(modulePath: string, args?: string[], options?: ForkOptions): UtilityProcess;
};
export declare const contextBridge: {
  exposeInMainWorld(apiKey: string, api: unknown): void;
};
export declare const ipcRenderer: {
  invoke(channel: string, ...args: unknown[]): Promise<any>;
};
