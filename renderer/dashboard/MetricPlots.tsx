/**
 * The live plots: reward (per step and rolling mean), loss, KL and clip fraction, learning rate,
 * queue length and step time; checkpoint markers on the step axis, the live one highlighted.
 */
import { useStore } from 'zustand';
import { useServices } from '../app/servicesContext.js';
import { EmptyState } from '../ui/EmptyState.js';
import { ErrorText } from '../ui/ErrorText.js';
import { num, signed } from '../ui/format.js';
import { Plot, type PlotMarker, type PlotSeries } from '../ui/Plot.js';
import { REWARD_WINDOW, type MetricsState, type StepSeries } from './metricsStore.js';
import './dashboard.css';

interface PlotDef {
  label: string;
  series: Array<PlotSeries & { key: StepSeries }>;
  summary: (s: MetricsState) => string;
}

const last = (s: MetricsState, k: StepSeries) => {
  const y = s.steps.y[k];
  for (let i = y.length - 1; i >= 0; i--) if (y[i] !== null) return y[i];
  return null;
};
const at = (s: MetricsState) => (s.steps.lastX === null ? 'No training steps yet.' : `At step ${s.steps.lastX}:`);

const STEP_PLOTS: PlotDef[] = [
  {
    label: 'Reward',
    series: [
      { key: 'reward', label: 'per step', color: '--plot-2', width: 1 },
      { key: 'rewardMean', label: `mean of last ${REWARD_WINDOW}`, color: '--plot-1', width: 2 },
    ],
    summary: (s) =>
      s.steps.length ? `${at(s)} reward ${signed(last(s, 'reward'))}, rolling mean ${signed(last(s, 'rewardMean'))}.` : at(s),
  },
  {
    label: 'Loss',
    series: [{ key: 'loss', label: 'loss', color: '--plot-1' }],
    summary: (s) => (s.steps.length ? `${at(s)} loss ${num(last(s, 'loss'))}.` : at(s)),
  },
  {
    label: 'KL and clip fraction',
    series: [
      { key: 'kl', label: 'KL to base', color: '--plot-1' },
      { key: 'clipFraction', label: 'clip fraction', color: '--plot-2', scale: 'y2' },
    ],
    summary: (s) => (s.steps.length ? `${at(s)} KL ${num(last(s, 'kl'))}, clip fraction ${num(last(s, 'clipFraction'))}.` : at(s)),
  },
  {
    label: 'Learning rate',
    series: [{ key: 'learningRate', label: 'learning rate', color: '--plot-3' }],
    summary: (s) => (s.steps.length ? `${at(s)} learning rate ${num(last(s, 'learningRate'))}.` : at(s)),
  },
  {
    label: 'Step time',
    series: [{ key: 'stepSeconds', label: 'seconds per step', color: '--plot-3' }],
    summary: (s) => (s.steps.length ? `${at(s)} ${num(last(s, 'stepSeconds'), 2)} s per step.` : at(s)),
  },
];

function StepPlot({ def }: { def: PlotDef }) {
  const { metrics } = useServices();
  const revision = useStore(metrics, (s) => s.revision);
  const summary = useStore(metrics, (s) => def.summary(s));
  const markers = (): PlotMarker[] => metrics.getState().markers.map((m) => ({ x: m.step, live: m.live, heldBack: m.heldBack }));
  return (
    <section className="card plot-card">
      <h2>{def.label}</h2>
      <Plot
        label={def.label}
        series={def.series}
        revision={revision}
        columns={() => metrics.getState().steps.columns(def.series.map((s) => s.key))}
        markers={markers}
        summary={summary}
      />
    </section>
  );
}

function QueuePlot() {
  const { metrics } = useServices();
  const revision = useStore(metrics, (s) => s.revision);
  const latest = useStore(metrics, (s) => s.queue.y.queued.at(-1) ?? null);
  return (
    <section className="card plot-card">
      <h2>Queue length</h2>
      <Plot
        label="Queue length"
        time
        series={[{ label: 'samples waiting', color: '--plot-2' }]}
        revision={revision}
        columns={() => metrics.getState().queue.columns(['queued'])}
        summary={latest === null ? 'No queue changes seen since this page opened.' : `${latest} sample(s) waiting.`}
      />
    </section>
  );
}

/** Before the first step: what the plots will show, and how to get a step. */
export function NoSteps() {
  const { metrics, training } = useServices();
  const none = useStore(metrics, (s) => s.loaded && s.error === null && s.steps.lastX === null);
  const batch = useStore(training, (s) => s.config?.batch_size ?? null);
  if (!none) return null;
  return (
    <EmptyState title="No training steps yet: rate answers in Chat.">
      Each 👍 or 👎 (with a hint if you like) queues the answer for training; when {batch === null ? 'enough' : `${batch} sample(s)`} are
      waiting, a step runs in the background. These plots then show its reward, loss and KL, step by step, and Checkpoints gets the new
      version.
    </EmptyState>
  );
}

export function MetricPlots() {
  const { metrics } = useServices();
  const error = useStore(metrics, (s) => s.error);
  const markers = useStore(metrics, (s) => s.markers);
  const live = markers.find((m) => m.live);
  return (
    <>
      <ErrorText>{error}</ErrorText>
      <p className="muted plot-key">
        Vertical lines mark checkpoints
        {live ? `; the thick one is live (step ${live.step}, v${live.version})` : ''}
        {markers.some((m) => m.heldBack) ? '; dashed ones were held back by the competence check' : ''}.
      </p>
      <div className="plots">
        {STEP_PLOTS.slice(0, 4).map((d) => (
          <StepPlot key={d.label} def={d} />
        ))}
        <QueuePlot />
        <StepPlot def={STEP_PLOTS[4]} />
      </div>
    </>
  );
}
