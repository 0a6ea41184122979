/** The Electron shell's extras, when the app runs inside it (null in a browser: web mode). */
import type { DesktopApi } from '../../electron/desktopApi.js';

export type { DesktopApi };

export function desktop(): DesktopApi | null {
  const w = window as unknown as { clawloopDesktop?: DesktopApi };
  return w.clawloopDesktop ?? null;
}
