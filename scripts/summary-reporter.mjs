// A node:test reporter that prints "N passed, N failed" (leaf tests only) for one run and, when
// CLAWLOOP_TEST_COUNTS names a file, writes the counts there for scripts/run-tests.mjs to add up.
//
// Skipped and todo tests are counted as failed: a check that did not run is not a pass. The one
// exception is a test or suite skipped because this machine lacks a prerequisite that the test
// names, with a reason starting "requires " (e.g. the native suite without the OpenBLAS addon: see
// test/helpers/nativeSkip.ts). Those are not failures, but they are never silent either: each
// is listed with its reason in the summary.
import fs from 'node:fs';

const PREREQUISITE = /^requires /;

// A test file whose process exits with status 0 before its tests finish (process.exit in the code
// under test, or --test-force-exit on Node 20, which scripts/run-tests.mjs no longer passes) loses
// them silently: node:test reports neither a pass nor a failure for the tests it had queued. So
// every queued test is remembered until it passes or fails, and when its file ends any that did
// neither are counted as failed and named.
//
// The counts are written after every test, not only at the end, so a runner stopped midway (the run's
// time cap) still leaves what it counted.
const save = (counts) => {
  if (process.env.CLAWLOOP_TEST_COUNTS) fs.writeFileSync(process.env.CLAWLOOP_TEST_COUNTS, JSON.stringify(counts));
};

/** Where a test was declared: the same test in every event about it. */
const testKey = (d) => `${d.file}:${d.line}:${d.column}:${d.nesting}:${d.name}`;
/** The entry node:test makes for a whole test file when it runs each file in a process of its own. */
const isFileEntry = (d) => d.nesting === 0 && d.name === d.file;

export default async function* summary(source) {
  const counts = { passed: 0, failed: 0, skipped: [] };
  const notRun = [];
  const unfinished = [];
  const queued = new Map(); // testKey -> { name, n }: the queued tests with that key not finished yet
  for await (const event of source) {
    const d = event.data;
    if (event.type === 'test:enqueue' && d?.file && !isFileEntry(d))
      queued.set(testKey(d), { name: d.name, n: (queued.get(testKey(d))?.n ?? 0) + 1 });
    if (event.type === 'test:complete' && d?.file && isFileEntry(d)) {
      const lost = [...queued].filter(([key]) => key.startsWith(`${d.file}:`));
      for (const [key, { name, n }] of lost) {
        queued.delete(key);
        counts.failed += n;
        unfinished.push(`${name} (${d.file})`);
      }
      if (lost.length) save(counts);
      continue;
    }
    if (event.type !== 'test:pass' && event.type !== 'test:fail') continue;
    if (d.file) {
      const q = queued.get(testKey(d));
      if (q && q.n > 1) q.n--;
      else queued.delete(testKey(d));
    }
    const skipped = event.type === 'test:pass' && (d.skip || d.todo);
    const reason = typeof d.skip === 'string' ? d.skip : '';
    if (skipped && PREREQUISITE.test(reason)) counts.skipped.push({ name: d.name, reason });
    else if (d.details?.type === 'suite' && !skipped) continue;
    else if (event.type === 'test:fail') counts.failed++;
    else if (skipped) {
      counts.failed++;
      notRun.push(d.name);
    } else counts.passed++;
    save(counts);
  }
  if (notRun.length) yield `not run (counted as failed): ${notRun.join(', ')}\n`;
  if (unfinished.length) yield `did not finish, the test file's process ended first (counted as failed): ${unfinished.join(', ')}\n`;
  for (const s of counts.skipped) yield `skipped: ${s.name}: ${s.reason}\n`;
  const label = process.env.CLAWLOOP_TEST_LABEL ? `${process.env.CLAWLOOP_TEST_LABEL}: ` : '';
  yield `${label}${counts.passed} passed, ${counts.failed} failed\n`;
  save(counts);
}
