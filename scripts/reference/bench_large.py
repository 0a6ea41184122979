"""PyTorch side of `npm run bench:engine -- --large`: one workload on a Hugging Face model folder.

Usage: bench_large.py DIR --workload prefill|decode|lora --dtype bf16|fp32 [--threads N]
       [--tokens T] [--prompt P] [--steps S] [--seq S] [--iters N] [--budget SECONDS]
Prints one JSON object: the figure, the tokens it was measured on, the load time and the peak RSS.

bf16 runs the model as PyTorch runs one loaded with torch_dtype=bfloat16 (weights and activations
bfloat16, float32 accumulation, RMSNorm and softmax in float32); fp32 widens the weights first
(what a CPU without BF16 units runs fastest). LoRA is PEFT's: rank-16 adapters on every
projection, in float32 beside the frozen base (PEFT's autocast_adapter_dtype), AdamW.
Where a workload would run past --budget seconds (BF16 on CPUs without AVX512-BF16/AMX runs
tens of times slower than float32), it is measured on fewer tokens and says so.
"""
import argparse
import json
import math
import os
import resource
import sys
import time

import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(__file__))
import model as ref  # noqa: E402
import st_io  # noqa: E402


def load(folder, dtype):
    index = json.load(open(os.path.join(folder, "model.safetensors.index.json")))["weight_map"]
    w = {}
    for shard in sorted(set(index.values())):
        for k, v in st_io.load(os.path.join(folder, shard)).items():
            w[k] = v.to(dtype)
    return json.load(open(os.path.join(folder, "config.json"))), w


class Lora:
    def __init__(self, cfg, w, r=16, alpha=32):
        self.scale = alpha / r
        self.params = {}
        g = torch.Generator().manual_seed(1)
        for name, t in w.items():
            if name.endswith("_proj.weight"):
                out_dim, in_dim = t.shape
                a = ((torch.rand(r, in_dim, generator=g) * 2 - 1) / math.sqrt(in_dim)).requires_grad_()
                b = torch.zeros(out_dim, r).requires_grad_()
                self.params[name] = (a, b)

    def tensors(self):
        return [p for pair in self.params.values() for p in pair]


def linear(x, w, name, lora):
    y = x @ w[name].t()
    if lora is not None and name in lora.params:
        a, b = lora.params[name]
        y = y + ((x.float() @ a.t()) @ b.t() * lora.scale).to(x.dtype)
    return y


def forward(cfg, w, ids, cache=None, lora=None, last_only=False):
    """ids [1, T] -> logits (float32); appends to `cache` (per-layer k, v) when given."""
    dt = w["model.norm.weight"].dtype
    T = ids.shape[1]
    nh, nkv, hd = cfg["num_attention_heads"], cfg["num_key_value_heads"], ref.head_dim(cfg)
    eps = cfg["rms_norm_eps"]
    off = cache[0][0].shape[2] if cache and cache[0] else 0

    def norm(x, weight):
        xf = x.float()
        return weight * (xf * torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + eps)).to(dt)

    cos, sin = (t.to(dt) for t in ref.rope_tables(cfg, torch.arange(off, off + T)))
    x = w["model.embed_tokens.weight"][ids]
    for l in range(cfg["num_hidden_layers"]):
        p = f"model.layers.{l}."
        h = norm(x, w[p + "input_layernorm.weight"])
        q = norm(linear(h, w, p + "self_attn.q_proj.weight", lora).view(1, T, nh, hd), w[p + "self_attn.q_norm.weight"])
        k = norm(linear(h, w, p + "self_attn.k_proj.weight", lora).view(1, T, nkv, hd), w[p + "self_attn.k_norm.weight"])
        v = linear(h, w, p + "self_attn.v_proj.weight", lora).view(1, T, nkv, hd)
        q, k, v = q.transpose(1, 2), k.transpose(1, 2), v.transpose(1, 2)
        q = q * cos + ref.rotate_half(q) * sin
        k = k * cos + ref.rotate_half(k) * sin
        if cache is not None:
            if cache[l]:
                k = torch.cat([cache[l][0], k], 2)
                v = torch.cat([cache[l][1], v], 2)
            cache[l] = (k, v)
        S = k.shape[2]
        att = (q @ k.repeat_interleave(nh // nkv, 1).transpose(-1, -2)) / math.sqrt(hd)
        if T > 1:
            att = att + torch.full((T, S), float("-inf")).triu(S - T + 1).to(att.dtype)
        o = (att.float().softmax(-1).to(dt) @ v.repeat_interleave(nh // nkv, 1)).transpose(1, 2).reshape(1, T, nh * hd)
        x = x + linear(o, w, p + "self_attn.o_proj.weight", lora)
        h = norm(x, w[p + "post_attention_layernorm.weight"])
        g = linear(h, w, p + "mlp.gate_proj.weight", lora)
        u = linear(h, w, p + "mlp.up_proj.weight", lora)
        x = x + linear(F.silu(g) * u, w, p + "mlp.down_proj.weight", lora)
    if last_only:
        x = x[:, -1:]
    x = norm(x, w["model.norm.weight"])
    return (x @ w.get("lm_head.weight", w["model.embed_tokens.weight"]).t()).float()


def ids_of(n, salt=0):
    return torch.tensor([[(salt * 7919 + t * 104729 + 17) % 151000 for t in range(n)]])


def fit(probe_s, probe_n, want_n, budget):
    """How many tokens fit the budget, at the speed the probe showed (never more than asked)."""
    return max(probe_n, min(want_n, int(budget / max(probe_s, 1e-9) * probe_n)))


@torch.no_grad()
def prefill(cfg, w, a):
    t0 = time.perf_counter()
    forward(cfg, w, ids_of(8), last_only=True)
    n = fit(time.perf_counter() - t0, 8, a.tokens, a.budget / (a.iters + 1))
    forward(cfg, w, ids_of(n), last_only=True)
    times = []
    for _ in range(a.iters):
        t0 = time.perf_counter()
        forward(cfg, w, ids_of(n), last_only=True)
        times.append(time.perf_counter() - t0)
    return {"tok_s": n / sorted(times)[len(times) // 2], "tokens": n}


@torch.no_grad()
def decode(cfg, w, a):
    cache = [None] * cfg["num_hidden_layers"]
    nxt = int(forward(cfg, w, ids_of(a.prompt), cache, last_only=True)[0, -1].argmax())
    t0 = time.perf_counter()
    nxt = int(forward(cfg, w, torch.tensor([[nxt]]), cache, last_only=True)[0, -1].argmax())
    steps = max(1, min(a.steps, int(a.budget / max(time.perf_counter() - t0, 1e-9))))
    t0 = time.perf_counter()
    for _ in range(steps):
        nxt = int(forward(cfg, w, torch.tensor([[nxt]]), cache, last_only=True)[0, -1].argmax())
    return {"tok_s": steps / (time.perf_counter() - t0), "tokens": steps}


def lora_step(cfg, w, a):
    lora = Lora(cfg, w)
    opt = torch.optim.AdamW(lora.tensors(), lr=1e-4)

    def step(n):
        ids = ids_of(n)
        logits = forward(cfg, w, ids, lora=lora)
        loss = F.cross_entropy(logits[0, :-1], ids[0, 1:])
        opt.zero_grad()
        loss.backward()
        opt.step()

    t0 = time.perf_counter()
    step(16)
    n = fit(time.perf_counter() - t0, 16, a.seq, a.budget / (a.iters + 1))
    step(n)
    times = []
    for _ in range(a.iters):
        t0 = time.perf_counter()
        step(n)
        times.append(time.perf_counter() - t0)
    s = sorted(times)[len(times) // 2]
    return {"step_s": s, "tok_s": n / s, "tokens": n}


def main():
    p = argparse.ArgumentParser()
    p.add_argument("dir")
    p.add_argument("--workload", required=True, choices=["prefill", "decode", "lora"])
    p.add_argument("--dtype", default="bf16", choices=["bf16", "fp32"])
    p.add_argument("--threads", type=int, default=os.cpu_count())
    for k, v in dict(tokens=512, prompt=32, steps=32, seq=256, iters=2).items():
        p.add_argument(f"--{k}", type=int, default=v)
    p.add_argument("--budget", type=float, default=300.0)
    a = p.parse_args()
    torch.set_num_threads(a.threads)
    t0 = time.perf_counter()
    cfg, w = load(a.dir, torch.bfloat16 if a.dtype == "bf16" else torch.float32)
    load_s = time.perf_counter() - t0
    out = {"prefill": prefill, "decode": decode, "lora": lora_step}[a.workload](cfg, w, a)
    out.update(workload=a.workload, dtype=a.dtype, load_s=load_s, threads=a.threads, torch=torch.__version__,
               peak_rss_mb=resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)
    print(json.dumps(out))


if __name__ == "__main__":
    main()
