/** "Name and note" on a checkpoint row: what to call it and why it matters, kept by the core. */
import { useId, useState } from 'react';
import { useServices } from '../app/servicesContext.js';
import type { CheckpointInfo } from '../api/contract.js';
import { CHECKPOINT_NAME_MAX, CHECKPOINT_NOTE_MAX } from '../../main/protocol/checkpoints.js';
import { ErrorText } from '../ui/ErrorText.js';
import { Field } from '../ui/Field.js';
import { useModalDialog } from '../ui/useModalDialog.js';

export function LabelDialog({ row, close }: { row: CheckpointInfo; close: () => void }) {
  const { checkpoints } = useServices();
  const ref = useModalDialog();
  const titleId = useId();
  const [name, setName] = useState(row.name ?? '');
  const [note, setNote] = useState(row.note ?? '');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const save = async () => {
    setBusy(true);
    const failed = await checkpoints.getState().label(row.id, { name, note });
    setBusy(false);
    if (failed) setError(failed);
    else close();
  };
  return (
    <dialog ref={ref} className="dialog" aria-labelledby={titleId} onCancel={(e) => (e.preventDefault(), close())}>
      <h2 id={titleId}>Name and note for v{row.adapter_version}</h2>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          void save();
        }}
      >
        <Field label="Name" help={`What to call it on this screen, at most ${CHECKPOINT_NAME_MAX} characters; empty: none.`}>
          <input type="text" maxLength={CHECKPOINT_NAME_MAX} value={name} onChange={(e) => setName(e.target.value)} autoFocus />
        </Field>
        <Field label="Note" help="Why this one matters, what it does well or badly.">
          <textarea rows={4} maxLength={CHECKPOINT_NOTE_MAX} value={note} onChange={(e) => setNote(e.target.value)} />
        </Field>
        <ErrorText>{error}</ErrorText>
        <div className="dialog-actions">
          <button type="button" className="btn" onClick={close}>
            Cancel
          </button>
          <button type="submit" className="btn btn-primary" disabled={busy}>
            {busy ? 'Saving…' : 'Save'}
          </button>
        </div>
      </form>
    </dialog>
  );
}
