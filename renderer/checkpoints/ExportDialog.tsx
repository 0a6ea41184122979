/**
 * Export a checkpoint as a PEFT adapter folder (transformers, PEFT, vLLM) or a GGUF file
 * (llama.cpp), into the data folder's exports/ or, in the desktop app, a folder the user chooses.
 */
import { useEffect, useRef, useState } from 'react';
import { useStore } from 'zustand';
import { desktop } from '../app/desktop.js';
import { useServices } from '../app/servicesContext.js';
import type { CheckpointInfo, ExportFormat } from '../api/contract.js';

export function ExportDialog({ row, close }: { row: CheckpointInfo; close: () => void }) {
  const { checkpoints, core } = useServices();
  const dataDir = useStore(core, (s) => s.info?.data_dir ?? null);
  const busy = useStore(checkpoints, (s) => s.busy[row.id] === 'export');
  const outcome = useStore(checkpoints, (s) => s.outcomes[row.id]);
  const [format, setFormat] = useState<ExportFormat>('peft');
  const [dir, setDir] = useState<string | null>(null);
  const [done, setDone] = useState(false);
  const ref = useRef<HTMLDialogElement>(null);
  const shell = desktop();
  useEffect(() => {
    const d = ref.current;
    if (d && !d.open) d.showModal();
    return () => d?.close();
  }, []);

  const target = dir ?? `${dataDir ?? '<data folder>'}/exports/`;
  return (
    <dialog ref={ref} className="dialog" aria-labelledby="export-title" onCancel={(e) => (e.preventDefault(), close())}>
      <h2 id="export-title">Export v{row.adapter_version}</h2>
      <fieldset className="field">
        <legend>Format</legend>
        <label className="row">
          <input type="radio" name="format" checked={format === 'peft'} onChange={() => setFormat('peft')} /> PEFT adapter folder (transformers, PEFT, vLLM)
        </label>
        <label className="row">
          <input type="radio" name="format" checked={format === 'gguf'} onChange={() => setFormat('gguf')} /> GGUF file (llama.cpp)
        </label>
      </fieldset>
      <p>
        Into: <code>{target}</code>
      </p>
      {shell && (
        <div className="row">
          <button type="button" className="btn btn-small" onClick={async () => setDir((await shell.chooseExportFolder()) ?? dir)}>
            Choose folder…
          </button>
          {dir && (
            <button type="button" className="btn btn-small" onClick={() => setDir(null)}>
              Use the data folder
            </button>
          )}
        </div>
      )}
      {done && outcome && (
        <div role="status" className={outcome.ok ? 'ok-text' : 'error-text'}>
          <p>{outcome.message}</p>
          {outcome.files && (
            <ul className="file-list">
              {outcome.files.map((f) => (
                <li key={f}>{f}</li>
              ))}
            </ul>
          )}
          {shell && outcome.ok && outcome.dir && (
            <button type="button" className="btn btn-small" onClick={() => void shell.revealFile(outcome.dir!)}>
              Show in folder
            </button>
          )}
        </div>
      )}
      <div className="dialog-actions">
        <button type="button" className="btn" onClick={close}>
          Close
        </button>
        <button
          type="button"
          className="btn btn-primary"
          disabled={busy}
          onClick={async () => {
            await checkpoints.getState().exportTo(row.id, format, dir ?? undefined);
            setDone(true);
          }}
        >
          {busy ? 'Exporting…' : 'Write export'}
        </button>
      </div>
    </dialog>
  );
}
