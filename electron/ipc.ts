/**
 * The IPC handlers behind the preload's functions. Each checks that the call comes from the
 * app's own page and validates its arguments before touching the file system.
 */
import fs from 'node:fs';
import path from 'node:path';
import { BrowserWindow, dialog, ipcMain, shell, type IpcMainInvokeEvent } from 'electron';
import { DESKTOP_CHANNELS } from './desktopApi.js';
import { fromApp } from './security.js';

async function chooseFolder(e: IpcMainInvokeEvent, title: string, buttonLabel: string): Promise<string | null> {
  const win = BrowserWindow.getAllWindows().find((w) => w.webContents === e.sender);
  if (!win) return null;
  const r = await dialog.showOpenDialog(win, { title, buttonLabel, properties: ['openDirectory', 'createDirectory'] });
  return r.canceled || !r.filePaths[0] ? null : r.filePaths[0];
}

export function registerIpc(origin: () => string | null, apiKey: () => string | null): void {
  const guard = (e: IpcMainInvokeEvent) => {
    if (!fromApp(e.senderFrame?.url, origin())) throw new Error('refused: this call did not come from the ClawLoop app');
  };
  ipcMain.handle(DESKTOP_CHANNELS.chooseModelFolder, (e) => {
    guard(e);
    return chooseFolder(e, 'Choose a model folder (config.json, *.safetensors, tokenizer.json)', 'Use this model');
  });
  ipcMain.handle(DESKTOP_CHANNELS.chooseExportFolder, (e) => {
    guard(e);
    return chooseFolder(e, 'Choose where to write the export', 'Export here');
  });
  ipcMain.handle(DESKTOP_CHANNELS.apiKey, (e) => {
    guard(e);
    return apiKey();
  });
  ipcMain.handle(DESKTOP_CHANNELS.openFolder, async (e, target: unknown) => {
    guard(e);
    if (typeof target !== 'string' || !path.isAbsolute(target) || target.includes('\0'))
      throw new Error(`openFolder needs an absolute path; got ${JSON.stringify(target)}`);
    const dir = path.normalize(target);
    if (!fs.statSync(dir, { throwIfNoEntry: false })?.isDirectory()) throw new Error(`${dir} is not a folder (was it moved or deleted?)`);
    // openPath answers an error message, or '' when the file manager opened it.
    const failed = await shell.openPath(dir);
    if (failed) throw new Error(`could not open ${dir}: ${failed}`);
  });
}
