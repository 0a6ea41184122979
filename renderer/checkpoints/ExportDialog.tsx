/**
 * Export a checkpoint as a PEFT adapter folder (transformers, PEFT, vLLM) or a GGUF file
 * (llama.cpp), into the data folder's exports/ or, in the desktop app, a folder the user chooses.
 * Written, the folder is a click away: Open folder in the desktop app, its path to copy everywhere.
 */
import { useState } from 'react';
import { useStore } from 'zustand';
import { desktop, type DesktopApi } from '../app/desktop.js';
import { useServices } from '../app/servicesContext.js';
import type { CheckpointInfo, ExportFormat } from '../api/contract.js';
import { CopyButton } from '../ui/CopyButton.js';
import { useModalDialog } from '../ui/useModalDialog.js';
import type { RowOutcome } from './checkpointsStore.js';

function FormatChoice({ format, onChange }: { format: ExportFormat; onChange: (f: ExportFormat) => void }) {
  return (
    <fieldset className="field">
      <legend>Format</legend>
      <label className="row">
        <input type="radio" name="format" checked={format === 'peft'} onChange={() => onChange('peft')} /> PEFT adapter folder
        (transformers, PEFT, vLLM)
      </label>
      <label className="row">
        <input type="radio" name="format" checked={format === 'gguf'} onChange={() => onChange('gguf')} /> GGUF file (llama.cpp)
      </label>
    </fieldset>
  );
}

/** In the desktop app: choose another folder than the data folder's exports/, or go back to it. */
function FolderChoice({ shell, dir, onChange }: { shell: DesktopApi; dir: string | null; onChange: (dir: string | null) => void }) {
  return (
    <div className="row">
      <button type="button" className="btn btn-small" onClick={async () => onChange((await shell.chooseExportFolder()) ?? dir)}>
        Choose folder…
      </button>
      {dir && (
        <button type="button" className="btn btn-small" onClick={() => onChange(null)}>
          Use the data folder
        </button>
      )}
    </div>
  );
}

/**
 * Where the export was written, a click away: its path with Copy folder path everywhere, and Open
 * folder in the desktop app (a browser cannot open folders, so it says where to paste the path).
 */
function WrittenFolder({ dir, shell }: { dir: string; shell: DesktopApi | null }) {
  const [openError, setOpenError] = useState<string | null>(null);
  const open = async () => {
    setOpenError(null);
    try {
      await shell!.openFolder(dir);
    } catch (err) {
      setOpenError((err as Error).message);
    }
  };
  return (
    <div className="export-folder">
      <p className="row">
        Folder: <code>{dir}</code>
      </p>
      <p className="row">
        {shell && (
          <button type="button" className="btn btn-small" onClick={() => void open()}>
            Open folder
          </button>
        )}
        <CopyButton text={dir} label="Copy folder path" shown="Copy folder path" />
      </p>
      {!shell && <p className="muted">A browser cannot open folders: paste the path into your file manager or a terminal.</p>}
      {openError && <p className="error-text">{openError}</p>}
    </div>
  );
}

function ExportOutcome({ outcome, shell }: { outcome: RowOutcome; shell: DesktopApi | null }) {
  return (
    <div role="status" className={outcome.ok ? 'ok-text' : 'error-text'}>
      <p>{outcome.message}</p>
      {outcome.files && (
        <ul className="file-list">
          {outcome.files.map((f) => (
            <li key={f}>{f}</li>
          ))}
        </ul>
      )}
      {outcome.ok && outcome.dir && <WrittenFolder dir={outcome.dir} shell={shell} />}
    </div>
  );
}

export function ExportDialog({ row, close }: { row: CheckpointInfo; close: () => void }) {
  const { checkpoints, core } = useServices();
  const dataDir = useStore(core, (s) => s.info?.data_dir ?? null);
  const busy = useStore(checkpoints, (s) => s.busy[row.id] === 'export');
  const outcome = useStore(checkpoints, (s) => s.outcomes[row.id]);
  const [format, setFormat] = useState<ExportFormat>('peft');
  const [dir, setDir] = useState<string | null>(null);
  const [done, setDone] = useState(false);
  const ref = useModalDialog();
  const shell = desktop();
  const write = async () => {
    await checkpoints.getState().exportTo(row.id, format, dir ?? undefined);
    setDone(true);
  };
  return (
    <dialog ref={ref} className="dialog" aria-labelledby="export-title" onCancel={(e) => (e.preventDefault(), close())}>
      <h2 id="export-title">Export v{row.adapter_version}</h2>
      <FormatChoice format={format} onChange={setFormat} />
      <p>
        Into: <code>{dir ?? `${dataDir ?? '<data folder>'}/exports/`}</code>
      </p>
      {shell && <FolderChoice shell={shell} dir={dir} onChange={setDir} />}
      {done && outcome && <ExportOutcome outcome={outcome} shell={shell} />}
      <div className="dialog-actions">
        <button type="button" className="btn" onClick={close}>
          Close
        </button>
        <button type="button" className="btn btn-primary" disabled={busy} onClick={write}>
          {busy ? 'Exporting…' : 'Write export'}
        </button>
      </div>
    </dialog>
  );
}
