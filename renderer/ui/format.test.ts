import assert from 'node:assert/strict';
import { test } from 'node:test';
import { quote } from './format.js';

test("quote: someone's words in quotes, without the characters that reorder or hide text", () => {
  assert.equal(quote('no headings'), '“no headings”');
  assert.equal(quote('invoice \u202egpj.exe'), '“invoice gpj.exe”');
  assert.equal(quote('zero\u200bwidth\u2066isolate\u2069'), '“zerowidthisolate”');
  assert.equal(quote('two\nlines'), '“two lines”');
});

test('quote: shortened to the length given, with an ellipsis', () => {
  assert.equal(quote('x'.repeat(100), 80), `“${'x'.repeat(77)}…”`);
  assert.equal(quote('x'.repeat(80), 80), `“${'x'.repeat(80)}”`);
});
