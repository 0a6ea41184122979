// A node:test reporter that prints one final line: "N passed, N failed" (leaf tests only).
// Skipped and todo tests are counted as failed: a check that did not run is not a pass.
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
  }
  if (notRun.length) yield `not run (counted as failed): ${notRun.join(', ')}\n`;
  yield `${passed} passed, ${failed} failed\n`;
}
