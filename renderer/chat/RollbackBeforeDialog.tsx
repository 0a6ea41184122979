/**
 * "Roll back to before this answer was learned?": names the version that goes live (the checkpoint
 * the answer's training step started from, or v0, the base model) before anything happens.
 */
import { useEffect, useState } from 'react';
import { useStore } from 'zustand';
import { useServices } from '../app/servicesContext.js';
import { ConfirmDialog } from '../ui/ConfirmDialog.js';

/** What goes live, in words: "v3 (step 2)", or the base model; null while the checkpoints load. */
function useTarget(turnId: string): string | null {
  const { chat, checkpoints } = useServices();
  const trainedBy = useStore(chat, (s) => s.turns[turnId]?.receipt?.checkpoint_id ?? null);
  const rows = useStore(checkpoints, (s) => s.rows);
  const loaded = useStore(checkpoints, (s) => s.loaded);
  useEffect(() => void checkpoints.getState().load(), [checkpoints]);
  if (!loaded) return null;
  const parentId = rows.find((r) => r.id === trainedBy)?.parent_id ?? null;
  const parent = parentId ? rows.find((r) => r.id === parentId) : undefined;
  return parent ? `v${parent.adapter_version} (step ${parent.step})` : 'v0, the base model with no adapter';
}

export function RollbackBeforeDialog({ turnId, close }: { turnId: string; close: () => void }) {
  const { chat } = useServices();
  const [busy, setBusy] = useState(false);
  const target = useTarget(turnId);
  return (
    <ConfirmDialog
      title="Roll back to before this answer was learned?"
      confirmLabel={target ? 'Roll back' : 'Roll back (checking…)'}
      busy={busy || !target}
      onCancel={close}
      onConfirm={async () => {
        setBusy(true);
        await chat.getState().rollbackBefore(turnId);
        setBusy(false);
        close();
      }}
    >
      <p>
        {target ? (
          <>
            <strong>{target}</strong> goes live now
          </>
        ) : (
          'The version from before the training step that used this answer goes live now'
        )}
        , served under a new version number: new answers come from it and training goes on from it. Later checkpoints stay in Checkpoints,
        and you can make any of them live again there.
      </p>
    </ConfirmDialog>
  );
}
