/** How numbers, times and sizes read in the app. */
import { shownText } from '../../main/protocol/sessions.js';

export function signed(n: number | null | undefined, digits = 2): string {
  if (n === null || n === undefined || !Number.isFinite(n)) return '—';
  return `${n > 0 ? '+' : n < 0 ? '−' : ''}${Math.abs(n).toFixed(digits)}`;
}

export function num(n: number | null | undefined, digits = 3): string {
  if (n === null || n === undefined || !Number.isFinite(n)) return '—';
  if (n !== 0 && (Math.abs(n) < 1e-3 || Math.abs(n) >= 1e5)) return n.toExponential(2);
  return String(Number(n.toFixed(digits)));
}

export function percent(x: number | null | undefined): string {
  return x === null || x === undefined || !Number.isFinite(x) ? '—' : `${Math.round(x * 100)} %`;
}

export function bytes(n: number | null | undefined): string {
  if (!n || !Number.isFinite(n)) return '—';
  const units = ['B', 'KB', 'MB', 'GB', 'TB'];
  let i = 0;
  let v = n;
  while (v >= 1024 && i < units.length - 1) {
    v /= 1024;
    i++;
  }
  return `${v.toFixed(v >= 100 || i === 0 ? 0 : 1)} ${units[i]}`;
}

export function params(n: number | null | undefined): string {
  if (!n) return '—';
  return n >= 1e9 ? `${(n / 1e9).toFixed(2)} B` : n >= 1e6 ? `${(n / 1e6).toFixed(2)} M` : `${Math.round(n / 1e3)} K`;
}

const timeFmt = new Intl.DateTimeFormat(undefined, { hour: '2-digit', minute: '2-digit', second: '2-digit' });
const dateFmt = new Intl.DateTimeFormat(undefined, { month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit' });

/** A time of day for today, else a short date and time. */
export function when(ms: number | null | undefined): string {
  if (!ms) return '—';
  const d = new Date(ms);
  return d.toDateString() === new Date().toDateString() ? timeFmt.format(d) : dateFmt.format(d);
}

export function version(v: number | null | undefined): string {
  return v === null || v === undefined ? 'v?' : `v${v}`;
}

const dateTimeFmt = new Intl.DateTimeFormat(undefined, {
  year: 'numeric',
  month: 'short',
  day: 'numeric',
  hour: '2-digit',
  minute: '2-digit',
  second: '2-digit',
});

/** A date and a time, always (records, where "10:32" alone leaves the day to guess). */
export function dateTime(ms: number | null | undefined): string {
  return ms ? dateTimeFmt.format(new Date(ms)) : '—';
}

/**
 * Someone's words in quotes, shortened to `max` characters, with the characters that reorder or hide
 * text removed (a hint with an RTL override would otherwise read backwards).
 */
export function quote(text: string, max = Infinity): string {
  const t = shownText(text);
  return `“${t.length > max ? `${t.slice(0, max - 3)}…` : t}”`;
}
