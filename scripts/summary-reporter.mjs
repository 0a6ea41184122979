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

// The counts are written after every test, not only at the end: with --test-force-exit the runner
// may exit before this stream finishes.
const save = (counts) => {
  if (process.env.CLAWLOOP_TEST_COUNTS) fs.writeFileSync(process.env.CLAWLOOP_TEST_COUNTS, JSON.stringify(counts));
};

export default async function* summary(source) {
  const counts = { passed: 0, failed: 0, skipped: [] };
  const notRun = [];
  for await (const event of source) {
    if (event.type !== 'test:pass' && event.type !== 'test:fail') continue;
    const d = event.data;
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
  for (const s of counts.skipped) yield `skipped: ${s.name}: ${s.reason}\n`;
  const label = process.env.CLAWLOOP_TEST_LABEL ? `${process.env.CLAWLOOP_TEST_LABEL}: ` : '';
  yield `${label}${counts.passed} passed, ${counts.failed} failed\n`;
  save(counts);
}
