import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { expectedWeights, ModelConfigError, parameterCount, parseModelConfig } from '../../main/engine/model/config.js';
import { ropeInvFreq } from '../../main/engine/model/layers/rope.js';

const base = {
  architectures: ['LlamaForCausalLM'],
  model_type: 'llama',
  hidden_size: 64,
  intermediate_size: 128,
  num_attention_heads: 4,
  num_hidden_layers: 2,
  vocab_size: 100,
};

describe('config.json', () => {
  it('fills Hugging Face defaults', () => {
    const c = parseModelConfig(base);
    assert.equal(c.architecture, 'llama');
    assert.equal(c.numKvHeads, 4);
    assert.equal(c.headDim, 16);
    assert.equal(c.ropeTheta, 10000);
    assert.deepEqual(c.ropeScaling, { type: 'none' });
    assert.equal(c.tieWordEmbeddings, false);
    assert.equal(c.biases.size, 0);
  });

  it("knows each architecture's extras", () => {
    const q2 = parseModelConfig({ ...base, architectures: ['Qwen2ForCausalLM'] });
    assert.deepEqual([...q2.biases].sort(), ['k_proj', 'q_proj', 'v_proj']);
    const q3 = parseModelConfig({ ...base, architectures: ['Qwen3ForCausalLM'], head_dim: 24 });
    assert.equal(q3.qkNorm, true);
    assert.equal(q3.headDim, 24);
    assert.ok(expectedWeights(q3).has('model.layers.0.self_attn.q_norm.weight'));
    assert.deepEqual(expectedWeights(q3).get('model.layers.0.self_attn.q_proj.weight'), [96, 64]);
    const m = parseModelConfig({ ...base, architectures: ['MistralForCausalLM'], sliding_window: 4096 });
    assert.equal(m.slidingWindow, 4096);
    const l = parseModelConfig({ ...base, attention_bias: true, mlp_bias: true, tie_word_embeddings: true });
    assert.equal(l.biases.size, 7);
    assert.ok(!expectedWeights(l).has('lm_head.weight'));
  });

  it('counts parameters (tied embeddings once)', () => {
    const c = parseModelConfig({ ...base, tie_word_embeddings: true });
    const perLayer = 4 * 64 * 64 + 3 * 64 * 128 + 2 * 64;
    assert.equal(parameterCount(c), 100 * 64 + 64 + 2 * perLayer);
  });

  it('refuses unsupported models with the list of supported ones', () => {
    assert.throws(
      () => parseModelConfig({ ...base, architectures: ['GPT2LMHeadModel'], model_type: 'gpt2' }),
      /architecture 'GPT2LMHeadModel' \(model_type 'gpt2'\); supported: LlamaForCausalLM, MistralForCausalLM, Qwen2ForCausalLM, Qwen3ForCausalLM/,
    );
    assert.throws(
      () => parseModelConfig({ ...base, rope_scaling: { rope_type: 'yarn', factor: 4 } }),
      /rope_scaling type 'yarn' is not supported; supported: default \(none\), linear, llama3/,
    );
    assert.throws(() => parseModelConfig({ ...base, hidden_act: 'gelu' }), /hidden_act 'gelu'/);
    assert.throws(() => parseModelConfig({ ...base, num_key_value_heads: 3 }), /multiple of num_key_value_heads/);
    assert.throws(() => parseModelConfig({ ...base, hidden_size: 'big' }), ModelConfigError);
    assert.throws(() => parseModelConfig({ ...base, vocab_size: undefined }), /'vocab_size' is missing/);
    assert.throws(() => parseModelConfig({ ...base, architectures: ['Qwen2ForCausalLM'], use_sliding_window: true }), /use_sliding_window/);
  });

  it('RoPE scaling: linear divides every frequency; llama3 keeps high, divides low, blends the middle', () => {
    const plain = ropeInvFreq(parseModelConfig(base));
    const linear = ropeInvFreq(parseModelConfig({ ...base, rope_scaling: { type: 'linear', factor: 4 } }));
    plain.forEach((f, i) => assert.ok(Math.abs(linear[i] - f / 4) < 1e-12));
    const l3 = ropeInvFreq(
      parseModelConfig({
        ...base,
        rope_scaling: { rope_type: 'llama3', factor: 8, low_freq_factor: 1, high_freq_factor: 4, original_max_position_embeddings: 64 },
      }),
    );
    assert.equal(l3[0], plain[0], 'highest frequency untouched');
    assert.ok(Math.abs(l3[7] - plain[7] / 8) < 1e-12, 'lowest frequency divided by the factor');
    const mid = l3.findIndex((f, i) => f !== plain[i] && Math.abs(f - plain[i] / 8) > 1e-12);
    assert.ok(mid > 0 && l3[mid] < plain[mid] && l3[mid] > plain[mid] / 8, 'a blended middle frequency');
  });
});
