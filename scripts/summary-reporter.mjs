// A node:test reporter that prints "N passed, N failed" (leaf tests only) for one run and, when
// CLAWLOOP_TEST_COUNTS names a file, writes the counts there for scripts/run-tests.mjs to add up.
// Skipped and todo tests are counted as failed: a check that did not run is not a pass.
import fs from 'node:fs';

// The counts are written after every test, not only at the end: with --test-force-exit the runner
// may exit before this stream finishes.
const save = (passed, failed) => {
  if (process.env.CLAWLOOP_TEST_COUNTS) fs.writeFileSync(process.env.CLAWLOOP_TEST_COUNTS, JSON.stringify({ passed, failed }));
};

export default async function* summary(source) {
  let passed = 0;
  let failed = 0;
  const notRun = [];
  for await (const event of source) {
    if (event.type !== 'test:pass' && event.type !== 'test:fail') continue;
    const d = event.data;
    if (d.details?.type === 'suite') continue;
    if (event.type === 'test:fail') failed++;
    else if (d.skip || d.todo) {
      failed++;
      notRun.push(d.name);
    } else passed++;
    save(passed, failed);
  }
  if (notRun.length) yield `not run (counted as failed): ${notRun.join(', ')}\n`;
  const label = process.env.CLAWLOOP_TEST_LABEL ? `${process.env.CLAWLOOP_TEST_LABEL}: ` : '';
  yield `${label}${passed} passed, ${failed} failed\n`;
  save(passed, failed);
}
