import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { TextTokenizer } from '../../main/engine/text/tokenizer.js';
import { MARKUP_TOKENS, pretokenize, SPECIAL_TOKENS, tokenizerConfig, tokenizerJson, trainBpe } from '../../scripts/default-model/bpe.js';

const corpus = [
  '<|im_start|>user\nMia has 12 stickers. She buys 7 more. How many stickers does Mia have now?<|im_end|>',
  '<|im_start|>assistant\n### Solution\n\n1. 12 + 7 = **19**.\n\n**Answer:** 19 stickers.<|im_end|>',
  'It\'s 18°C and cloudy — naïve café, 東京. <tool_call>{"name": "x"}</tool_call>',
];

describe('byte-level BPE trainer', () => {
  it('pre-tokenizes like Qwen: digits one by one, specials removed', () => {
    assert.deepEqual(pretokenize('abc 123<|im_end|>x'), ['abc', ' ', '1', '2', '3', 'x']);
    assert.deepEqual(pretokenize("it's"), ['it', "'s"]);
  });

  it('writes a tokenizer.json that the tokenizers library loads and that round-trips any text', () => {
    const bpe = trainBpe(corpus.concat(corpus), 400);
    const again = trainBpe(corpus.concat(corpus), 400);
    assert.deepEqual(bpe.merges, again.merges, 'training is deterministic');
    assert.ok(bpe.merges.length > 20);
    const tok = new TextTokenizer(tokenizerJson(bpe), tokenizerConfig('{{ messages }}', 1024));
    for (const text of [...corpus, 'unseen words: zebra ☃ 🙂 and 4096']) {
      assert.equal(tok.decode(tok.encode(text)), text);
    }
    for (const t of [...SPECIAL_TOKENS, ...MARKUP_TOKENS]) assert.equal(tok.encode(t).length, 1, t);
    const ids = tok.encode('12345');
    assert.equal(ids.length, 5, 'each digit is its own token');
    assert.ok(tok.encode(' stickers').length === 1, 'a frequent word is one token');
    assert.deepEqual(tok.specialIds.size, SPECIAL_TOKENS.length);
  });
});
