"""PyTorch side of `npm run bench:engine`: the same workload as ClawLoop's engine benchmark.

Usage: bench_engine.py CONFIG_JSON [--threads N] [--iters N]
Prints one JSON object: {"prefill_tok_s", "decode_tok_s", "train_lora_tok_s", "train_full_tok_s", "threads", "torch"}.

The model is the reference implementation (model.py) with random weights; decoding adds a plain
KV cache so the comparison with ClawLoop's cached decoder is fair.
"""
import argparse
import json
import math
import os
import sys
import time

import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(__file__))
import model as ref  # noqa: E402


def timed(fn, iters, warmup=1):
    for _ in range(warmup):
        fn()
    times = []
    for _ in range(iters):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    times.sort()
    return times[len(times) // 2]  # median


def decode_with_cache(cfg, w, prompt, n):
    """Greedy decoding with a KV cache (the reference forward has none)."""
    nh, nkv, hd = cfg["num_attention_heads"], cfg["num_key_value_heads"], ref.head_dim(cfg)
    eps = cfg["rms_norm_eps"]
    L = cfg["num_hidden_layers"]
    cache_k = [None] * L
    cache_v = [None] * L
    qwen3 = cfg["architectures"][0] == "Qwen3ForCausalLM"

    def step(ids, offset):
        B, T = ids.shape
        cos, sin = ref.rope_tables(cfg, torch.arange(offset, offset + T))
        x = w["model.embed_tokens.weight"][ids]
        for l in range(L):
            p = f"model.layers.{l}."
            h = ref.rms_norm(x, w[p + "input_layernorm.weight"], eps)
            q = (h @ w[p + "self_attn.q_proj.weight"].t()).view(B, T, nh, hd)
            k = (h @ w[p + "self_attn.k_proj.weight"].t()).view(B, T, nkv, hd)
            v = (h @ w[p + "self_attn.v_proj.weight"].t()).view(B, T, nkv, hd)
            if qwen3:
                q = ref.rms_norm(q, w[p + "self_attn.q_norm.weight"], eps)
                k = ref.rms_norm(k, w[p + "self_attn.k_norm.weight"], eps)
            q, k, v = q.transpose(1, 2), k.transpose(1, 2), v.transpose(1, 2)
            q = q * cos + ref.rotate_half(q) * sin
            k = k * cos + ref.rotate_half(k) * sin
            if cache_k[l] is not None:
                k = torch.cat([cache_k[l], k], dim=2)
                v = torch.cat([cache_v[l], v], dim=2)
            cache_k[l], cache_v[l] = k, v
            rep = nh // nkv
            kk = k.repeat_interleave(rep, dim=1)
            vv = v.repeat_interleave(rep, dim=1)
            S = kk.shape[2]
            att = (q @ kk.transpose(-1, -2)) / math.sqrt(hd)
            if T > 1:
                att = att + torch.full((T, S), float("-inf")).triu(S - T + 1)
            o = (att.softmax(-1) @ vv).transpose(1, 2).reshape(B, T, nh * hd)
            x = x + o @ w[p + "self_attn.o_proj.weight"].t()
            h = ref.rms_norm(x, w[p + "post_attention_layernorm.weight"], eps)
            g = h @ w[p + "mlp.gate_proj.weight"].t()
            u = h @ w[p + "mlp.up_proj.weight"].t()
            x = x + (F.silu(g) * u) @ w[p + "mlp.down_proj.weight"].t()
        x = ref.rms_norm(x[:, -1:], w["model.norm.weight"], eps)
        head = w.get("lm_head.weight", w["model.embed_tokens.weight"])
        return x @ head.t()

    with torch.no_grad():
        logits = step(prompt, 0)
        pos = prompt.shape[1]
        for _ in range(n):
            nxt = logits[:, -1].argmax(-1, keepdim=True)
            logits = step(nxt, pos)
            pos += 1


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("config")
    ap.add_argument("--threads", type=int, default=os.cpu_count())
    ap.add_argument("--iters", type=int, default=5)
    ap.add_argument("--batch", type=int, default=8)
    ap.add_argument("--seq", type=int, default=128)
    ap.add_argument("--decode-tokens", type=int, default=64)
    args = ap.parse_args()
    torch.set_num_threads(args.threads)
    cfg = json.load(open(args.config))
    gen = torch.Generator().manual_seed(0)
    w = ref.random_weights(cfg, gen, std=0.02)
    B, T, V = args.batch, args.seq, cfg["vocab_size"]
    ids = torch.randint(0, V, (B, T), generator=gen)
    out = {"threads": torch.get_num_threads(), "torch": torch.__version__}

    with torch.no_grad():
        # forward over the whole batch, logits only for the last position (as generation does)
        out["prefill_tok_s"] = B * T / timed(lambda: ref.forward(cfg, w, ids, last_only=True), args.iters)

    n = args.decode_tokens
    out["decode_tok_s"] = n / timed(lambda: decode_with_cache(cfg, w, ids[:1], n), max(2, args.iters // 2))

    def train_step(params, opt, lora):
        opt.zero_grad()
        logits = ref.forward(cfg, weights, ids, lora)
        loss = F.cross_entropy(logits[:, :-1].reshape(-1, V), ids[:, 1:].reshape(-1))
        loss.backward()
        torch.nn.utils.clip_grad_norm_(params, 1.0)
        opt.step()

    # LoRA r=8 on every projection, base frozen.
    weights = w
    shapes = ref.param_shapes(cfg)
    A, Bm = {}, {}
    for l in range(cfg["num_hidden_layers"]):
        for t in ref.LORA_TARGETS:
            group = "self_attn" if t in ref.ATTN else "mlp"
            o, i = shapes[f"model.layers.{l}.{group}.{t}.weight"]
            A[f"{l}.{t}"] = (torch.randn(8, i, generator=gen) / math.sqrt(i)).requires_grad_()
            Bm[f"{l}.{t}"] = torch.zeros(o, 8).requires_grad_()
    lora = ref.Lora(8, 16, ref.LORA_TARGETS, A, Bm)
    lora_params = list(A.values()) + list(Bm.values())
    opt = torch.optim.AdamW(lora_params, lr=1e-4, betas=(0.9, 0.98), weight_decay=0.1)
    out["train_lora_tok_s"] = B * T / timed(lambda: train_step(lora_params, opt, lora), args.iters)

    weights = {k: v.clone().requires_grad_() for k, v in w.items()}
    full_params = list(weights.values())
    opt = torch.optim.AdamW(full_params, lr=1e-5, betas=(0.9, 0.98), weight_decay=0.1)
    out["train_full_tok_s"] = B * T / timed(lambda: train_step(full_params, opt, None), args.iters)
    print(json.dumps(out))


if __name__ == "__main__":
    main()
