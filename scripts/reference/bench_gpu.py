"""PyTorch side of `npm run bench:gpu`: the same workloads as ClawLoop's GPU benchmark, on CUDA.

Usage: bench_gpu.py --config CONFIG.json --workload WORKLOAD.json --dtype bf16|fp32
Prints one JSON object: {"prefill_tok_s": {"BxT": ...}, "decode_tok_s": {"B": ...},
"train_lora_tok_s", "peak_memory_bytes", "peer", "errors": [...]}, or {"error": ...}.

The peers are the ones the GPU bars name: Hugging Face transformers' Qwen3ForCausalLM with random
weights (SDPA attention for prefill and training, eager attention for decoding, as its generate
loop runs by default on this model) and PEFT LoRA on every projection, trained with AdamW.
Every phase reads its result back to the host (as ClawLoop does), and runs once to warm up.
"""
import argparse
import json
import sys
import time

import torch

PROJECTIONS = ["q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj"]


def tokens(batch, seq, vocab, device):
    ids = [[(b * 7919 + t * 104729 + 13) % vocab for t in range(seq)] for b in range(batch)]
    return torch.tensor(ids, dtype=torch.long, device=device)


def timed(fn, iters):
    fn()
    torch.cuda.synchronize()
    times = []
    for _ in range(iters):
        t0 = time.perf_counter()
        fn()
        torch.cuda.synchronize()
        times.append(time.perf_counter() - t0)
    times.sort()
    return times[len(times) // 2]


def set_attention(model, name):
    """Switches the attention kernel of every layer (the config object is shared by all of them)."""
    if hasattr(model, "set_attn_implementation"):
        try:
            model.set_attn_implementation(name)
            return
        except Exception:  # noqa: BLE001 - older versions: fall through to the config field
            pass
    model.config._attn_implementation = name


def build(cfg_json, dtype):
    from transformers import Qwen3Config, Qwen3ForCausalLM

    keys = ["vocab_size", "hidden_size", "intermediate_size", "num_hidden_layers", "num_attention_heads",
            "num_key_value_heads", "head_dim", "max_position_embeddings", "rms_norm_eps", "rope_theta",
            "tie_word_embeddings"]
    cfg = Qwen3Config(**{k: cfg_json[k] for k in keys}, attn_implementation="sdpa")
    torch.manual_seed(0)
    with torch.device("cuda"):
        model = Qwen3ForCausalLM(cfg)
    model = model.to(dtype).eval()
    torch.cuda.empty_cache()
    return model


def prefill(model, vocab, batch, seq, iters):
    ids = tokens(batch, seq, vocab, "cuda")

    def run():
        with torch.no_grad():
            model(input_ids=ids, logits_to_keep=1).logits.float().cpu()

    return batch * seq / timed(run, iters)


def decode(model, vocab, batch, w, iters):
    prompt = tokens(batch, w["prompt"], vocab, "cuda")
    set_attention(model, "eager")
    times = []
    with torch.no_grad():
        for r in range(iters + 1):
            out = model(input_ids=prompt, use_cache=True)
            past, nxt = out.past_key_values, out.logits[:, -1].argmax(-1, keepdim=True)
            torch.cuda.synchronize()
            t0 = time.perf_counter()
            for _ in range(w["tokens"]):
                out = model(input_ids=nxt, past_key_values=past, use_cache=True)
                past, nxt = out.past_key_values, out.logits[:, -1].argmax(-1, keepdim=True)
                nxt.cpu()  # the token reaches the host every step, as in generation
            if r > 0:
                times.append(time.perf_counter() - t0)
    set_attention(model, "sdpa")
    times.sort()
    return batch * w["tokens"] / times[len(times) // 2]


def train_lora(model, vocab, w, iters):
    from peft import LoraConfig, get_peft_model

    lora = LoraConfig(r=w["r"], lora_alpha=w["alpha"], lora_dropout=0.0, target_modules=PROJECTIONS, task_type="CAUSAL_LM")
    peft_model = get_peft_model(model, lora)
    peft_model.train()
    opt = torch.optim.AdamW([p for p in peft_model.parameters() if p.requires_grad], lr=1e-4)
    ids = tokens(w["batch"], w["seq"], vocab, "cuda")

    def step():
        out = peft_model(input_ids=ids, labels=ids)
        out.loss.backward()
        opt.step()
        opt.zero_grad(set_to_none=True)
        out.loss.item()

    return w["batch"] * w["seq"] / timed(step, iters)


def phase(errors, what, fn):
    try:
        return fn()
    except Exception as e:  # noqa: BLE001 - report and go on with the other phases
        errors.append(f"{what}: {type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}")
        torch.cuda.empty_cache()
        return None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--config", required=True)
    ap.add_argument("--workload", required=True)
    ap.add_argument("--dtype", choices=["bf16", "fp32"], required=True)
    args = ap.parse_args()
    if not torch.cuda.is_available():
        print(json.dumps({"error": "torch finds no CUDA GPU"}))
        return
    try:
        import peft
        import transformers
    except ImportError as e:
        print(json.dumps({"error": f"{e.name} is not installed (pip install transformers peft)"}))
        return
    cfg = json.load(open(args.config))
    w = json.load(open(args.workload))
    dtype = torch.bfloat16 if args.dtype == "bf16" else torch.float32
    model = build(cfg, dtype)
    torch.cuda.reset_peak_memory_stats()  # from the weights in their dtype on (not the float32 init)
    vocab = cfg["vocab_size"]
    errors = []
    figures = {"prefill_tok_s": {}, "decode_tok_s": {}, "train_lora_tok_s": None}
    for b, t in w["prefill"]:
        figures["prefill_tok_s"][f"{b}x{t}"] = phase(errors, f"prefill {b}x{t}", lambda: prefill(model, vocab, b, t, w["iters"]))
    for b in w["decode"]["batches"]:
        figures["decode_tok_s"][str(b)] = phase(errors, f"decode batch {b}", lambda: decode(model, vocab, b, w["decode"], w["iters"]))
    figures["train_lora_tok_s"] = phase(errors, "LoRA training", lambda: train_lora(model, vocab, w["train"], w["iters"]))
    figures["peak_memory_bytes"] = torch.cuda.max_memory_allocated()
    figures["peer"] = (f"PyTorch {torch.__version__} {args.dtype}, transformers {transformers.__version__} "
                       f"(SDPA prefill, eager decode), PEFT {peft.__version__}")
    figures["errors"] = errors
    print(json.dumps(figures))


if __name__ == "__main__":
    sys.exit(main())
