/**
 * Checkpoints: every saved adapter in lineage order (parent → child) with its version, step, time,
 * samples, mean reward, competence and badges; per row Roll back (asked first), Pin, Export and Compare.
 */
import { useEffect, useState } from 'react';
import { useStore } from 'zustand';
import { useServices } from '../app/servicesContext.js';
import type { CheckpointInfo } from '../api/contract.js';
import { EmptyState } from '../ui/EmptyState.js';
import { ErrorText } from '../ui/ErrorText.js';
import { num, percent, when } from '../ui/format.js';
import { OutcomeText } from '../ui/OutcomeText.js';
import { TableHead } from '../ui/TableHead.js';
import { ComparePanel } from './ComparePanel.js';
import { ExportDialog } from './ExportDialog.js';
import { LabelDialog } from './LabelDialog.js';
import { PastComparisons } from './PastComparisons.js';
import { lineageRows } from './checkpointsStore.js';
import { RollbackDialog, type RollbackTarget } from './RollbackDialog.js';
import { RowActions } from './RowActions.js';
import { againText, branchNote, describeVersion, readableCheckpointText, stepName } from './versionNames.js';
import './checkpoints.css';

const COLUMNS = ['Version', 'Step', 'Created', 'From', 'Samples', 'Mean reward', 'Competence', 'Status', 'Actions'] as const;

function Badges({ row, liveId }: { row: CheckpointInfo; liveId: string | null }) {
  const { checkpoints } = useServices();
  const rows = useStore(checkpoints, (s) => s.rows);
  const c = row.competence;
  const reason =
    c?.held_back && c.reason ? readableCheckpointText(c.reason.replace(/^held back by the competence gate: /, ''), rows) : null;
  return (
    <>
      <span className="row">
        {(row.id === liveId || row.live) && <span className="badge badge-live">Live</span>}
        {row.pinned && <span className="badge badge-pinned">Pinned</span>}
        {c?.held_back && <span className="badge badge-warn">Held back</span>}
      </span>
      {reason && <span className="held-reason">{reason}</span>}
    </>
  );
}

interface RowProps {
  row: CheckpointInfo;
  /** The parent's earlier child, when this row's training went back past it (see lineageRows). */
  bypassed: CheckpointInfo | null;
  versions: Map<string, number>;
  onExport: () => void;
  onCompare: () => void;
  onRollback: () => void;
  onLabel: () => void;
}

function Row({ row, bypassed, versions, onExport, onCompare, onRollback, onLabel }: RowProps) {
  const { checkpoints } = useServices();
  const liveId = useStore(checkpoints, (s) => s.liveId);
  const again = useStore(checkpoints, (s) => againText(s.rollbacks, row.id));
  const isLive = row.id === liveId;
  const parent = row.parent_id ? versions.get(row.parent_id) : undefined;
  return (
    <tr>
      <th scope="row" className="version-cell">
        v{row.adapter_version}
        <VersionAgain text={again} />
        {row.name && <span className="checkpoint-name">{row.name}</span>}
      </th>
      <td>{row.step}</td>
      <td>{when(row.created_at)}</td>
      <td>
        {parent !== undefined ? `v${parent}` : row.parent_id ? `${stepName(row.parent_id)} (removed)` : 'v0 (base model)'}
        {bypassed && <BranchNote bypassed={bypassed} />}
      </td>
      <td>{row.samples?.total ?? '—'}</td>
      <td>{num(row.metrics?.mean_reward, 2)}</td>
      <td>{row.competence ? `${percent(row.competence.accuracy)} (n=${row.competence.n})` : '—'}</td>
      <td>
        <Badges row={row} liveId={liveId} />
        {row.note && (
          <span className="checkpoint-note" title={row.note}>
            Note: {row.note}
          </span>
        )}
      </td>
      <RowActions row={row} isLive={isLive} onExport={onExport} onCompare={onCompare} onRollback={onRollback} onLabel={onLabel} />
    </tr>
  );
}

/** "after a rollback" under a row's parent, with the whole story on hover and to screen readers. */
function BranchNote({ bypassed }: { bypassed: CheckpointInfo }) {
  const note = branchNote(bypassed);
  return (
    <span className="from-note" title={note.long}>
      , {note.short}
      <span className="visually-hidden"> ({note.long})</span>
    </span>
  );
}

/** Before the first training step: what this screen will list, and how to get there. */
function NoCheckpoints() {
  return (
    <EmptyState title="No checkpoints yet: rate answers in Chat, and a training step makes one.">
      A rating (👍 or 👎, with a hint if you like) queues the answer for training; once enough are queued a step runs, and the adapter it
      trains is saved here as v1, v2 and so on, ready to roll back to, compare or export. Until then v0, the base model, answers.
    </EmptyState>
  );
}

/** The numbers rollbacks served a row under again ("again as v5"): answers name them too. */
function VersionAgain({ text }: { text: string }) {
  if (!text) return null;
  return (
    <span
      className="version-again"
      title="A rollback made this adapter live again under a number of its own; answers from then on name that number"
    >
      {' '}
      · {text}
    </span>
  );
}

export function CheckpointsScreen() {
  const { checkpoints, core, compare } = useServices();
  const rows = useStore(checkpoints, (s) => s.rows);
  const error = useStore(checkpoints, (s) => s.error);
  const loaded = useStore(checkpoints, (s) => s.loaded);
  const liveId = useStore(checkpoints, (s) => s.liveId);
  const liveVersion = useStore(core, (s) => s.liveVersion);
  const rollbacks = useStore(checkpoints, (s) => s.rollbacks);
  const [exporting, setExporting] = useState<CheckpointInfo | null>(null);
  const [labelling, setLabelling] = useState<CheckpointInfo | null>(null);
  const [comparing, setComparing] = useState<string | null>(null);
  const comparedAt = useStore(compare, (s) => (s.running ? null : s.answers));
  const [rollingBack, setRollingBack] = useState<RollbackTarget | null>(null);
  useEffect(() => void checkpoints.getState().load(), [checkpoints]);
  const versions = new Map(rows.map((r) => [r.id, r.adapter_version]));

  return (
    <div>
      <h1>Checkpoints</h1>
      <p className="muted">
        Live now: {liveVersion === null ? 'v?' : describeVersion(liveVersion, rows, rollbacks)}. Rolling back makes a checkpoint live at
        once under a new version number (listed on its row); training goes on from it.
      </p>
      <ErrorText>{error && readableCheckpointText(error, rows)}</ErrorText>
      {loaded && rows.length === 0 && <NoCheckpoints />}
      {comparing && <ComparePanel first={comparing} rows={rows} close={() => setComparing(null)} />}
      <div className="table-scroll">
        <table>
          <caption>
            {loaded
              ? `${rows.length} checkpoint(s), newest first; “From” is the checkpoint each was trained from (“after a rollback”: training went back to an earlier one).`
              : 'Loading…'}
          </caption>
          <TableHead columns={COLUMNS} />
          <tbody>
            {lineageRows(rows).map(({ row, bypassed }) => (
              <Row
                key={row.id}
                row={row}
                bypassed={bypassed}
                versions={versions}
                onExport={() => setExporting(row)}
                onCompare={() => setComparing(row.id)}
                onLabel={() => setLabelling(row)}
                onRollback={() => setRollingBack({ id: row.id, label: `v${row.adapter_version} (step ${row.step})` })}
              />
            ))}
            <BaseRow live={liveId === null} onRollback={() => setRollingBack({ id: 'base', label: 'v0 (the base model)' })} />
          </tbody>
        </table>
        <PastComparisons refresh={comparedAt} />
      </div>
      {exporting && <ExportDialog row={exporting} close={() => setExporting(null)} />}
      {labelling && <LabelDialog row={labelling} close={() => setLabelling(null)} />}
      {rollingBack && <RollbackDialog target={rollingBack} close={() => setRollingBack(null)} />}
    </div>
  );
}

function BaseRow({ live, onRollback }: { live: boolean; onRollback: () => void }) {
  const { checkpoints } = useServices();
  const busy = useStore(checkpoints, (s) => s.busy.base);
  const outcome = useStore(checkpoints, (s) => s.outcomes.base);
  const again = useStore(checkpoints, (s) => againText(s.rollbacks, null));
  return (
    <tr>
      <th scope="row">
        v0 (base model)
        <VersionAgain text={again} />
      </th>
      <td colSpan={6} className="muted">
        The model as loaded, with no adapter.
      </td>
      <td>{live && <span className="badge badge-live">Live</span>}</td>
      <td>
        <button type="button" className="btn btn-small" disabled={live || !!busy} onClick={onRollback}>
          Roll back
        </button>
        {outcome && <OutcomeText ok={outcome.ok}>{outcome.message}</OutcomeText>}
      </td>
    </tr>
  );
}
