/**
 * A live line plot (uPlot on a canvas). It is created once; each change of `revision` redraws it
 * with the same column arrays at the next frame (several changes in one frame cost one redraw),
 * so 10,000+ points stay smooth. Vertical markers (checkpoints) are drawn on the x axis, the live
 * one highlighted. For screen readers the plot is one image with a name and a sentence summary.
 */
import { useEffect, useRef, useState } from 'react';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';

export interface PlotSeries {
  label: string;
  /** A CSS custom property holding the colour, e.g. '--plot-1'. */
  color: string;
  width?: number;
  dash?: number[];
  /** 'y' (default) or 'y2' for a second axis on the right. */
  scale?: 'y' | 'y2';
  points?: boolean;
}

export interface PlotMarker {
  x: number;
  live: boolean;
  heldBack: boolean;
}

export interface PlotProps {
  /** The accessible name (role="img"), e.g. "Reward". */
  label: string;
  series: PlotSeries[];
  /** Returns the columns to draw: x first, then one per series. */
  columns: () => uPlot.AlignedData;
  revision: number;
  markers?: () => PlotMarker[];
  /** x holds seconds since epoch (a time axis) instead of step numbers. */
  time?: boolean;
  height?: number;
  /** One sentence describing the latest values (read by screen readers, shown under the plot). */
  summary: string;
}

/** Name of the performance measure each redraw records (bench:app reads it). */
export const REDRAW_MEASURE = 'clawloop:plot-redraw';

/** Tick spacings of a step axis: whole steps only. */
const STEP_INCREMENTS = [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10_000, 20_000, 50_000, 100_000, 1_000_000];

function useColorScheme(): string {
  const [dark, setDark] = useState(() => window.matchMedia('(prefers-color-scheme: dark)').matches);
  useEffect(() => {
    const mq = window.matchMedia('(prefers-color-scheme: dark)');
    const on = () => setDark(mq.matches);
    mq.addEventListener('change', on);
    return () => mq.removeEventListener('change', on);
  }, []);
  return dark ? 'dark' : 'light';
}

/** Records each full redraw (uPlot draws after setData, in a microtask) as a performance measure. */
function redrawTimer(): uPlot.Plugin {
  let start = 0;
  return {
    hooks: {
      drawClear: () => {
        start = performance.now();
      },
      draw: () => {
        performance.measure(REDRAW_MEASURE, { start, end: performance.now() });
      },
    },
  };
}

function markerPlugin(markers: () => PlotMarker[], css: (v: string) => string): uPlot.Plugin {
  return {
    hooks: {
      draw: (u) => {
        const { ctx, bbox } = u;
        const dpr = window.devicePixelRatio || 1;
        ctx.save();
        for (const m of markers()) {
          const x = Math.round(u.valToPos(m.x, 'x', true));
          if (x < bbox.left || x > bbox.left + bbox.width) continue;
          ctx.strokeStyle = css(m.live ? '--accent' : m.heldBack ? '--warning' : '--plot-marker');
          ctx.lineWidth = (m.live ? 2 : 1) * dpr;
          ctx.setLineDash(m.heldBack ? [4 * dpr, 3 * dpr] : []);
          ctx.beginPath();
          ctx.moveTo(x, bbox.top);
          ctx.lineTo(x, bbox.top + bbox.height);
          ctx.stroke();
        }
        ctx.restore();
      },
    },
  };
}

function options(p: PlotProps, width: number, css: (v: string) => string, markers: () => PlotMarker[]): uPlot.Options {
  const axis = { stroke: css('--text-muted'), grid: { stroke: css('--grid'), width: 1 }, ticks: { stroke: css('--grid'), width: 1 } };
  const hasY2 = p.series.some((s) => s.scale === 'y2');
  return {
    width,
    height: p.height ?? 180,
    legend: { show: false },
    cursor: { drag: { x: false, y: false }, points: { size: 6 } },
    scales: { x: { time: !!p.time } },
    series: [
      {},
      ...p.series.map((s) => ({
        label: s.label,
        stroke: css(s.color),
        width: s.width ?? 1.5,
        dash: s.dash,
        scale: s.scale ?? 'y',
        spanGaps: false,
        // Shown when few enough to tell apart (uPlot's default), always for per-step scatter.
        points: s.points ? { show: true } : {},
      })),
    ],
    axes: [
      { ...axis, ...(p.time ? {} : { incrs: STEP_INCREMENTS }) },
      { ...axis, scale: 'y', size: 56 },
      ...(hasY2 ? [{ ...axis, scale: 'y2', side: 1, size: 56, grid: { show: false } }] : []),
    ],
    // The timer's draw hook runs last, after the markers are drawn.
    plugins: [markerPlugin(markers, css), redrawTimer()],
  };
}

export function Plot(props: PlotProps) {
  const box = useRef<HTMLDivElement>(null);
  const plot = useRef<uPlot | null>(null);
  const latest = useRef(props);
  latest.current = props;
  const scheme = useColorScheme();
  // A plot scrolled out of view skips its redraws and catches up when it comes back.
  const visible = useRef(true);
  const stale = useRef(false);

  useEffect(() => {
    const el = box.current;
    if (!el) return;
    const style = getComputedStyle(el);
    const css = (v: string) => style.getPropertyValue(v).trim() || '#888';
    const markers = () => latest.current.markers?.() ?? [];
    const u = new uPlot(options(latest.current, Math.max(200, el.clientWidth), css, markers), latest.current.columns(), el);
    plot.current = u;
    const ro = new ResizeObserver(() => u.setSize({ width: Math.max(200, el.clientWidth), height: latest.current.height ?? 180 }));
    ro.observe(el);
    const io = new IntersectionObserver(([entry]) => {
      visible.current = entry.isIntersecting;
      if (visible.current && stale.current) {
        stale.current = false;
        u.setData(latest.current.columns());
      }
    });
    io.observe(el);
    return () => {
      ro.disconnect();
      io.disconnect();
      u.destroy();
      plot.current = null;
    };
  }, [scheme]);

  useEffect(() => {
    const id = requestAnimationFrame(() => {
      if (!visible.current) stale.current = true;
      else plot.current?.setData(latest.current.columns());
    });
    return () => cancelAnimationFrame(id);
  }, [props.revision]);

  return (
    <div className="plot">
      <div className="plot-legend" aria-hidden="true">
        {props.series.map((s) => (
          <span key={s.label} className="legend-item">
            <span className="swatch" style={{ background: `var(${s.color})` }} />
            {s.label}
          </span>
        ))}
      </div>
      <div ref={box} role="img" aria-label={props.label} className="plot-canvas" />
      <p className="plot-summary">{props.summary}</p>
    </div>
  );
}
