/** "Make v3 live?": Roll back on Checkpoints asks first and says what happens to the version live now. */
import { useState } from 'react';
import { useStore } from 'zustand';
import { useServices } from '../app/servicesContext.js';
import { ConfirmDialog } from '../ui/ConfirmDialog.js';

export interface RollbackTarget {
  /** A checkpoint id, or 'base'. */
  id: string;
  /** How the row names it: "v3 (step 2)" or "v0 (the base model)". */
  label: string;
}

export function RollbackDialog({ target, close }: { target: RollbackTarget; close: () => void }) {
  const { checkpoints, core } = useServices();
  const liveVersion = useStore(core, (s) => s.liveVersion);
  const [busy, setBusy] = useState(false);
  return (
    <ConfirmDialog
      title={`Make ${target.label} live?`}
      confirmLabel={`Roll back to ${target.label.split(' ')[0]}`}
      busy={busy}
      onCancel={close}
      onConfirm={async () => {
        setBusy(true);
        await checkpoints.getState().rollback(target.id);
        setBusy(false);
        close();
      }}
    >
      <p>
        {target.label} answers from now on, served under a new version number, and training goes on from it.
        {liveVersion !== null && ` v${liveVersion}, live now, stays in this list: you can make it live again.`}
      </p>
    </ConfirmDialog>
  );
}
