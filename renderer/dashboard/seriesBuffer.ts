/**
 * Append-only columns for live plots: one x column and named y columns, kept as plain arrays that
 * the plots hand to uPlot as they are (no copy per frame). A gap (a step without a reward) is null,
 * which uPlot draws as a break in the line.
 */
export class SeriesBuffer<K extends string> {
  readonly x: number[] = [];
  readonly y: Record<K, (number | null)[]>;

  constructor(readonly names: readonly K[]) {
    this.y = Object.fromEntries(names.map((n) => [n, [] as (number | null)[]])) as Record<K, (number | null)[]>;
  }

  get length(): number {
    return this.x.length;
  }

  get lastX(): number | null {
    return this.x.length ? this.x[this.x.length - 1] : null;
  }

  push(x: number, values: Partial<Record<K, number | null>>): void {
    this.x.push(x);
    for (const n of this.names) {
      const v = values[n];
      this.y[n].push(v === undefined || v === null || !Number.isFinite(v) ? null : v);
    }
  }

  /** The columns in uPlot's order: x first, then the named ones. */
  columns(names: readonly K[]): [number[], ...(number | null)[][]] {
    return [this.x, ...names.map((n) => this.y[n])];
  }

  clear(): void {
    this.x.length = 0;
    for (const n of this.names) this.y[n].length = 0;
  }
}

/** Mean of the last `window` non-null values pushed (null until one arrived). */
export class RollingMean {
  private readonly ring: number[] = [];
  private sum = 0;

  constructor(readonly window: number) {}

  push(v: number | null): number | null {
    if (v !== null && Number.isFinite(v)) {
      this.ring.push(v);
      this.sum += v;
      if (this.ring.length > this.window) this.sum -= this.ring.shift()!;
    }
    return this.ring.length ? this.sum / this.ring.length : null;
  }

  clear(): void {
    this.ring.length = 0;
    this.sum = 0;
  }
}
