/**
 * A small line chart rendered to PNG with no dependencies: an RGB raster, lines and markers, a
 * 5×7 bitmap font for labels, and a PNG encoder (zlib from Node). Enough for benchmark plots.
 */
import zlib from 'node:zlib';

export interface Series {
  label: string;
  points: Array<[number, number]>;
  /** RGB. */
  color: [number, number, number];
  dashed?: boolean;
}

export interface ChartOptions {
  title: string;
  xLabel: string;
  yLabel: string;
  series: Series[];
  /** y range; default [0, 1]. */
  yRange?: [number, number];
  /** Horizontal reference lines, e.g. a target. */
  hLines?: Array<{ y: number; label: string; color: [number, number, number] }>;
  width?: number;
  height?: number;
}

// 5×7 glyphs, one number per row (bit 4 = leftmost pixel).
const FONT: Record<string, number[]> = {
  ' ': [0, 0, 0, 0, 0, 0, 0],
  '0': [14, 17, 19, 21, 25, 17, 14],
  '1': [4, 12, 4, 4, 4, 4, 14],
  '2': [14, 17, 1, 2, 4, 8, 31],
  '3': [31, 2, 4, 2, 1, 17, 14],
  '4': [2, 6, 10, 18, 31, 2, 2],
  '5': [31, 16, 30, 1, 1, 17, 14],
  '6': [6, 8, 16, 30, 17, 17, 14],
  '7': [31, 1, 2, 4, 8, 8, 8],
  '8': [14, 17, 17, 14, 17, 17, 14],
  '9': [14, 17, 17, 15, 1, 2, 12],
  A: [14, 17, 17, 31, 17, 17, 17],
  B: [30, 17, 17, 30, 17, 17, 30],
  C: [14, 17, 16, 16, 16, 17, 14],
  D: [28, 18, 17, 17, 17, 18, 28],
  E: [31, 16, 16, 30, 16, 16, 31],
  F: [31, 16, 16, 30, 16, 16, 16],
  G: [14, 17, 16, 23, 17, 17, 15],
  H: [17, 17, 17, 31, 17, 17, 17],
  I: [14, 4, 4, 4, 4, 4, 14],
  J: [7, 2, 2, 2, 2, 18, 12],
  K: [17, 18, 20, 24, 20, 18, 17],
  L: [16, 16, 16, 16, 16, 16, 31],
  M: [17, 27, 21, 21, 17, 17, 17],
  N: [17, 17, 25, 21, 19, 17, 17],
  O: [14, 17, 17, 17, 17, 17, 14],
  P: [30, 17, 17, 30, 16, 16, 16],
  Q: [14, 17, 17, 17, 21, 18, 13],
  R: [30, 17, 17, 30, 20, 18, 17],
  S: [15, 16, 16, 14, 1, 1, 30],
  T: [31, 4, 4, 4, 4, 4, 4],
  U: [17, 17, 17, 17, 17, 17, 14],
  V: [17, 17, 17, 17, 17, 10, 4],
  W: [17, 17, 17, 21, 21, 21, 10],
  X: [17, 17, 10, 4, 10, 17, 17],
  Y: [17, 17, 17, 10, 4, 4, 4],
  Z: [31, 1, 2, 4, 8, 16, 31],
  '.': [0, 0, 0, 0, 0, 12, 12],
  ',': [0, 0, 0, 0, 12, 4, 8],
  ':': [0, 12, 12, 0, 12, 12, 0],
  '-': [0, 0, 0, 31, 0, 0, 0],
  '+': [0, 4, 4, 31, 4, 4, 0],
  '=': [0, 0, 31, 0, 31, 0, 0],
  '(': [2, 4, 8, 8, 8, 4, 2],
  ')': [8, 4, 2, 2, 2, 4, 8],
  '/': [0, 1, 2, 4, 8, 16, 0],
  '%': [24, 25, 2, 4, 8, 19, 3],
  '>': [8, 4, 2, 1, 2, 4, 8],
  '<': [2, 4, 8, 16, 8, 4, 2],
  _: [0, 0, 0, 0, 0, 0, 31],
};

class Raster {
  readonly data: Uint8Array;
  constructor(
    readonly w: number,
    readonly h: number,
  ) {
    this.data = new Uint8Array(w * h * 3).fill(255);
  }

  px(x: number, y: number, c: readonly number[]): void {
    x = Math.round(x);
    y = Math.round(y);
    if (x < 0 || y < 0 || x >= this.w || y >= this.h) return;
    const i = (y * this.w + x) * 3;
    this.data[i] = c[0];
    this.data[i + 1] = c[1];
    this.data[i + 2] = c[2];
  }

  rect(x: number, y: number, w: number, h: number, c: readonly number[]): void {
    for (let j = 0; j < h; j++) for (let i = 0; i < w; i++) this.px(x + i, y + j, c);
  }

  /** A line `thick` pixels wide; `dash` > 0 draws dashes of that length. */
  line(x0: number, y0: number, x1: number, y1: number, c: readonly number[], thick = 1, dash = 0): void {
    const len = Math.hypot(x1 - x0, y1 - y0);
    const steps = Math.max(1, Math.ceil(len * 2));
    const r = (thick - 1) / 2;
    for (let s = 0; s <= steps; s++) {
      const t = s / steps;
      if (dash > 0 && Math.floor((t * len) / dash) % 2 === 1) continue;
      const x = x0 + (x1 - x0) * t;
      const y = y0 + (y1 - y0) * t;
      for (let dy = -r; dy <= r; dy++) for (let dx = -r; dx <= r; dx++) this.px(x + dx, y + dy, c);
    }
  }

  /** Text in the 5×7 font at `scale`; unknown characters are drawn as spaces. Returns the width. */
  text(s: string, x: number, y: number, c: readonly number[], scale = 2, measureOnly = false): number {
    let cx = x;
    for (const ch of s.toUpperCase()) {
      const g = FONT[ch] ?? FONT[' '];
      if (!measureOnly)
        for (let row = 0; row < 7; row++)
          for (let col = 0; col < 5; col++) if (g[row] & (16 >> col)) this.rect(cx + col * scale, y + row * scale, scale, scale, c);
      cx += 6 * scale;
    }
    return cx - x;
  }

  textWidth(s: string, scale = 2): number {
    return this.text(s, 0, 0, [0, 0, 0], scale, true);
  }

  /** Text rotated 90° counter-clockwise (for the y-axis label), starting at (x, y) going up. */
  textUp(s: string, x: number, y: number, c: readonly number[], scale = 2): void {
    let cy = y;
    for (const ch of s.toUpperCase()) {
      const g = FONT[ch] ?? FONT[' '];
      for (let row = 0; row < 7; row++)
        for (let col = 0; col < 5; col++) if (g[row] & (16 >> col)) this.rect(x + row * scale, cy - col * scale - scale, scale, scale, c);
      cy -= 6 * scale;
    }
  }
}

const CRC_TABLE = (() => {
  const t = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    t[n] = c >>> 0;
  }
  return t;
})();

function crc32(buf: Uint8Array): number {
  let c = 0xffffffff;
  for (const b of buf) c = CRC_TABLE[(c ^ b) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

function chunk(type: string, data: Uint8Array): Buffer {
  const out = Buffer.alloc(12 + data.length);
  out.writeUInt32BE(data.length, 0);
  out.write(type, 4, 'ascii');
  Buffer.from(data).copy(out, 8);
  out.writeUInt32BE(crc32(out.subarray(4, 8 + data.length)), 8 + data.length);
  return out;
}

/** An 8-bit RGB PNG of a raster. */
function encodePng(r: Raster): Buffer {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(r.w, 0);
  ihdr.writeUInt32BE(r.h, 4);
  ihdr[8] = 8; // bit depth
  ihdr[9] = 2; // RGB
  const raw = Buffer.alloc((r.w * 3 + 1) * r.h);
  for (let y = 0; y < r.h; y++) {
    raw[y * (r.w * 3 + 1)] = 0; // filter: none
    Buffer.from(r.data.buffer, r.data.byteOffset + y * r.w * 3, r.w * 3).copy(raw, y * (r.w * 3 + 1) + 1);
  }
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', ihdr),
    chunk('IDAT', zlib.deflateSync(raw, { level: 9 })),
    chunk('IEND', new Uint8Array(0)),
  ]);
}

function niceStep(range: number, target: number): number {
  const raw = range / target;
  const mag = 10 ** Math.floor(Math.log10(raw));
  for (const m of [1, 2, 5, 10]) if (m * mag >= raw) return m * mag;
  return 10 * mag;
}

/** Renders a line chart to PNG bytes. */
export function renderLineChart(o: ChartOptions): Buffer {
  const W = o.width ?? 900;
  const measure = new Raster(1, 1);
  const layout = legendLayout(o.series, 90, W, (t) => measure.textWidth(t));
  const H = (o.height ?? 520) + (layout.rows - 1) * LEGEND_ROW;
  const r = new Raster(W, H);
  const legend = layout.entries.map((e) => ({ ...e, y: H - 36 - (layout.rows - 1) * LEGEND_ROW + e.y }));
  const ink = [40, 40, 40];
  const grid = [225, 225, 225];
  const left = 90;
  const right = W - 30;
  const top = 60;
  const bottom = H - 110 - (layout.rows - 1) * LEGEND_ROW;
  const [y0, y1] = o.yRange ?? [0, 1];
  const xs = o.series.flatMap((s) => s.points.map((p) => p[0]));
  const xMin = Math.min(0, ...xs);
  const xMax = Math.max(1, ...xs);
  const X = (x: number) => left + ((x - xMin) / (xMax - xMin)) * (right - left);
  const Y = (y: number) => bottom - ((y - y0) / (y1 - y0)) * (bottom - top);

  r.text(o.title, (W - r.textWidth(o.title, 3)) / 2, 18, ink, 3);
  const yStep = niceStep(y1 - y0, 5);
  for (let v = y0; v <= y1 + 1e-9; v += yStep) {
    r.line(left, Y(v), right, Y(v), grid);
    const label = v.toFixed(yStep < 1 ? 1 : 0);
    r.text(label, left - 10 - r.textWidth(label), Y(v) - 7, ink);
  }
  const xStep = niceStep(xMax - xMin, 8);
  for (let v = Math.ceil(xMin / xStep) * xStep; v <= xMax + 1e-9; v += xStep) {
    r.line(X(v), top, X(v), bottom, grid);
    const label = String(Math.round(v));
    r.text(label, X(v) - r.textWidth(label) / 2, bottom + 10, ink);
  }
  r.line(left, top, left, bottom, ink, 2);
  r.line(left, bottom, right, bottom, ink, 2);
  r.text(o.xLabel, (left + right - r.textWidth(o.xLabel)) / 2, bottom + 34, ink);
  r.textUp(o.yLabel, 18, (top + bottom + r.textWidth(o.yLabel)) / 2, ink);

  for (const h of o.hLines ?? []) {
    r.line(left, Y(h.y), right, Y(h.y), h.color, 1, 6);
    r.text(h.label, right - r.textWidth(h.label), Y(h.y) - 20, h.color);
  }
  for (const s of o.series) {
    const pts = [...s.points].sort((a, b) => a[0] - b[0]);
    for (let i = 1; i < pts.length; i++)
      r.line(X(pts[i - 1][0]), Y(pts[i - 1][1]), X(pts[i][0]), Y(pts[i][1]), s.color, 3, s.dashed ? 8 : 0);
    for (const [x, y] of pts) r.rect(X(x) - 4, Y(y) - 4, 9, 9, s.color);
  }
  for (const e of legend) {
    r.line(e.x, e.y + 7, e.x + 30, e.y + 7, e.series.color, 3, e.series.dashed ? 8 : 0);
    r.text(e.series.label, e.x + 40, e.y, ink);
  }
  return encodePng(r);
}

const LEGEND_ROW = 26;

/** Where each series' legend entry goes: left to right under the x label, wrapping into rows that fit the width. */
function legendLayout(series: ChartOptions['series'], left: number, width: number, textWidth: (s: string) => number) {
  const entries: Array<{ series: ChartOptions['series'][number]; x: number; y: number }> = [];
  let x = left;
  let row = 0;
  for (const s of series) {
    const w = 40 + textWidth(s.label);
    if (x > left && x + w > width - 10) {
      row++;
      x = left;
    }
    entries.push({ series: s, x, y: row * LEGEND_ROW });
    x += w + 30;
  }
  return { entries, rows: row + 1 };
}
