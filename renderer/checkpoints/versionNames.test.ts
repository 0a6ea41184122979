import assert from 'node:assert/strict';
import { test } from 'node:test';
import { checkpoint as cp } from '../test/fakeCore.js';
import { againText, describeVersion, readableCheckpointText } from './versionNames.js';

const rows = [cp('step-000001', 1, null), cp('step-000002', 2, 'step-000001'), cp('step-000004', 4, 'step-000002')];
const rollbacks = [
  { version: 3, checkpoint_id: 'step-000001', created_at: 3 },
  { version: 5, checkpoint_id: null, created_at: 5 },
  { version: 6, checkpoint_id: 'step-000001', created_at: 6 },
];

test('versions: a version a rollback issued is named by the row it serves again', () => {
  assert.equal(describeVersion(4, rows, rollbacks), 'v4 (trained in step 4)');
  assert.equal(describeVersion(3, rows, rollbacks), 'v3 (v1 again, trained in step 1)');
  assert.equal(describeVersion(5, rows, rollbacks), 'v5 (the base model again)');
  assert.equal(describeVersion(0, rows, rollbacks), 'v0 (the base model)');
  assert.equal(againText(rollbacks, 'step-000001'), 'again as v3, v6');
  assert.equal(againText(rollbacks, null), 'again as v5');
  assert.equal(againText(rollbacks, 'step-000004'), '');
});

test('versions: folder names in the core’s texts read as versions, or steps once their row is gone', () => {
  assert.equal(
    readableCheckpointText('41 % below the best live policy (52 %, step-000002)', rows),
    '41 % below the best live policy (52 %, v2)',
  );
  assert.equal(readableCheckpointText("checkpoint 'step-000009' is listed", rows), "checkpoint 'step 9' is listed");
});
