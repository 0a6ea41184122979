import assert from 'node:assert/strict';
import { test } from 'node:test';
import { API, ROUTE_NAMES } from '../../main/protocol/api.js';
import { JSON_ROUTES } from './responses.js';

test('client: the response types cover exactly the route table’s JSON routes', () => {
  const json = ROUTE_NAMES.filter((n) => API[n].response.kind === 'json').sort();
  assert.deepEqual([...JSON_ROUTES].sort(), json);
});
