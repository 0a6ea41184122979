/**
 * The one contract between the Electron shell and the page: what the preload exposes on
 * `window.clawloopDesktop` (only what a web page cannot do itself), and the IPC channel of each.
 * Types and constants only, so both the preload and the renderer can import it.
 */
export interface DesktopApi {
  /** Opens a folder picker for a model folder; null when cancelled. */
  chooseModelFolder(): Promise<string | null>;
  /** Opens a folder picker for where to write an export; null when cancelled. */
  chooseExportFolder(): Promise<string | null>;
  /** Opens a folder itself in the system's file manager; rejects when it is not a folder or cannot be opened. */
  openFolder(path: string): Promise<void>;
  /** The core's API key, handed to the page here so it is never in a URL or in storage; null when it has none. */
  apiKey(): Promise<string | null>;
}

export const DESKTOP_CHANNELS = {
  chooseModelFolder: 'clawloop:choose-model-folder',
  chooseExportFolder: 'clawloop:choose-export-folder',
  openFolder: 'clawloop:open-folder',
  apiKey: 'clawloop:api-key',
} as const satisfies Record<keyof DesktopApi, string>;

/** The global name the preload exposes the API under. */
export const DESKTOP_GLOBAL = 'clawloopDesktop';
