/**
 * Settings: the model folder (validated by the core: a folder that is not a supported model is
 * refused with the reason), the backend and the data folder. They take effect at the next start.
 */
import { createStore, type StoreApi } from 'zustand/vanilla';
import type { ApiClient } from '../api/client.js';
import type { Settings, SettingsPatch } from '../api/contract.js';
import { ApiRequestError } from '../api/transport.js';

export { BACKENDS } from '../../main/protocol/app.js';

export interface SettingsState {
  settings: Settings | null;
  loadError: string | null;
  saving: boolean;
  /** The error of a field, by its name (model_dir, backend). */
  fieldErrors: Record<string, string>;
  message: string | null;

  load(): Promise<void>;
  save(patch: SettingsPatch): Promise<boolean>;
}

export type SettingsStore = StoreApi<SettingsState>;

export function createSettingsStore(api: ApiClient): SettingsStore {
  return createStore<SettingsState>()((set, get) => ({
    settings: null,
    loadError: null,
    saving: false,
    fieldErrors: {},
    message: null,

    async load() {
      try {
        set({ settings: await api.settings(), loadError: null });
      } catch (err) {
        set({ loadError: `Could not load the settings: ${(err as Error).message}` });
      }
    },

    async save(patch) {
      const cur = get().settings;
      const changed: SettingsPatch = {};
      if (patch.model_dir !== undefined && patch.model_dir !== cur?.model_dir) changed.model_dir = patch.model_dir;
      if (patch.backend !== undefined && patch.backend !== cur?.backend) changed.backend = patch.backend;
      if (!Object.keys(changed).length) {
        set({ message: 'Nothing changed.', fieldErrors: {} });
        return true;
      }
      set({ saving: true, fieldErrors: {}, message: null });
      try {
        const next = await api.saveSettings(changed);
        set({ settings: next, message: next.restart_required ? 'Saved. Restart ClawLoop to use it.' : 'Saved.' });
        return true;
      } catch (err) {
        const e = err as Error;
        const param = err instanceof ApiRequestError && err.param ? err.param : 'form';
        set({ fieldErrors: { [param]: e.message }, message: null });
        return false;
      } finally {
        set({ saving: false });
      }
    },
  }));
}
