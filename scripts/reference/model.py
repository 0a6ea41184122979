"""Independent PyTorch implementation of the decoder-only architectures ClawLoop supports.

Llama, Mistral, Qwen2 and Qwen3, written from the Hugging Face reference semantics with plain
torch ops and no ClawLoop code. It is the numeric reference for the engine's tests and the
speed peer in `npm run bench:engine`.

Weights use Hugging Face names and layouts (Linear weights are [out, in]).
"""
import math

import torch
import torch.nn.functional as F

LORA_TARGETS = ("q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj")
ATTN = ("q_proj", "k_proj", "v_proj", "o_proj")
MLP = ("gate_proj", "up_proj", "down_proj")


def head_dim(cfg):
    return cfg.get("head_dim") or cfg["hidden_size"] // cfg["num_attention_heads"]


def inv_freq(cfg):
    hd = head_dim(cfg)
    base = cfg.get("rope_theta", 10000.0)
    inv = 1.0 / (base ** (torch.arange(0, hd, 2, dtype=torch.float64) / hd))
    scaling = cfg.get("rope_scaling") or {}
    kind = scaling.get("rope_type", scaling.get("type", "default"))
    if kind == "linear":
        inv = inv / scaling["factor"]
    elif kind == "llama3":
        factor = scaling["factor"]
        low, high = scaling["low_freq_factor"], scaling["high_freq_factor"]
        old = scaling["original_max_position_embeddings"]
        low_wl, high_wl = old / low, old / high
        wl = 2 * math.pi / inv
        scaled = torch.where(wl > low_wl, inv / factor, inv)
        smooth = (old / wl - low) / (high - low)
        smoothed = (1 - smooth) * scaled / factor + smooth * scaled
        medium = (wl >= high_wl) & (wl <= low_wl)
        inv = torch.where(medium, smoothed, scaled)
    elif kind != "default":
        raise ValueError(f"unsupported rope type {kind}")
    return inv.float()


def rope_tables(cfg, positions):
    freqs = positions.float()[:, None] * inv_freq(cfg)[None, :]  # [T, hd/2]
    emb = torch.cat([freqs, freqs], dim=-1)  # [T, hd]
    return emb.cos(), emb.sin()


def rotate_half(x):
    h = x.shape[-1] // 2
    return torch.cat([-x[..., h:], x[..., :h]], dim=-1)


def rms_norm(x, w, eps):
    var = x.pow(2).mean(-1, keepdim=True)
    return x * torch.rsqrt(var + eps) * w


def biases(cfg):
    """Which projections carry a bias, per architecture."""
    arch = cfg["architectures"][0]
    out = set()
    if arch == "Qwen2ForCausalLM":
        out |= {"q_proj", "k_proj", "v_proj"}
    elif cfg.get("attention_bias"):
        out |= set(ATTN)
    if cfg.get("mlp_bias"):
        out |= set(MLP)
    return out


def param_shapes(cfg):
    H, I, V = cfg["hidden_size"], cfg["intermediate_size"], cfg["vocab_size"]
    nh, nkv, hd = cfg["num_attention_heads"], cfg["num_key_value_heads"], head_dim(cfg)
    dims = {"q_proj": (nh * hd, H), "k_proj": (nkv * hd, H), "v_proj": (nkv * hd, H), "o_proj": (H, nh * hd),
            "gate_proj": (I, H), "up_proj": (I, H), "down_proj": (H, I)}
    shapes = {"model.embed_tokens.weight": (V, H), "model.norm.weight": (H,)}
    if not cfg.get("tie_word_embeddings", False):
        shapes["lm_head.weight"] = (V, H)
    has_bias = biases(cfg)
    for i in range(cfg["num_hidden_layers"]):
        p = f"model.layers.{i}."
        shapes[p + "input_layernorm.weight"] = (H,)
        shapes[p + "post_attention_layernorm.weight"] = (H,)
        for name in LORA_TARGETS:
            group = "self_attn" if name in ATTN else "mlp"
            shapes[f"{p}{group}.{name}.weight"] = dims[name]
            if name in has_bias:
                shapes[f"{p}{group}.{name}.bias"] = (dims[name][0],)
        if cfg["architectures"][0] == "Qwen3ForCausalLM":
            shapes[p + "self_attn.q_norm.weight"] = (hd,)
            shapes[p + "self_attn.k_norm.weight"] = (hd,)
    return shapes


def random_weights(cfg, gen, std=0.08):
    w = {}
    for name, shape in param_shapes(cfg).items():
        if name.endswith("norm.weight"):
            w[name] = 1.0 + 0.1 * torch.randn(shape, generator=gen)
        elif name.endswith(".bias"):
            w[name] = 0.05 * torch.randn(shape, generator=gen)
        else:
            w[name] = std * torch.randn(shape, generator=gen)
    return w


class Lora:
    """PEFT-style LoRA: delta(x) = (x @ A^T @ B^T) * alpha / r. A: [r, in], B: [out, r]."""

    def __init__(self, r, alpha, targets, A, B):
        self.r, self.alpha, self.targets, self.A, self.B = r, alpha, targets, A, B
        self.scale = alpha / r


def linear(x, W, b=None, lora=None, key=None):
    y = x @ W.t()
    if b is not None:
        y = y + b
    if lora is not None and key in lora.A:
        y = y + (x @ lora.A[key].t() @ lora.B[key].t()) * lora.scale
    return y


def forward(cfg, w, ids, lora=None, positions=None, last_only=False):
    """ids: [B, T] int64 -> logits [B, T, V] ([B, 1, V] with last_only). Causal (and sliding-window when configured)."""
    B, T = ids.shape
    H = cfg["hidden_size"]
    nh, nkv, hd = cfg["num_attention_heads"], cfg["num_key_value_heads"], head_dim(cfg)
    eps = cfg["rms_norm_eps"]
    qwen3 = cfg["architectures"][0] == "Qwen3ForCausalLM"
    pos = torch.arange(T) if positions is None else positions
    cos, sin = rope_tables(cfg, pos)
    mask = torch.full((T, T), float("-inf")).triu(1)
    window = cfg.get("sliding_window") if cfg["architectures"][0] == "MistralForCausalLM" else None
    if window:
        i = torch.arange(T)[:, None]
        j = torch.arange(T)[None, :]
        mask = mask.masked_fill(i - j >= window, float("-inf"))

    x = w["model.embed_tokens.weight"][ids]  # [B, T, H]
    for l in range(cfg["num_hidden_layers"]):
        p = f"model.layers.{l}."
        g = lambda name: w.get(p + name)  # noqa: E731
        h = rms_norm(x, g("input_layernorm.weight"), eps)
        q = linear(h, g("self_attn.q_proj.weight"), g("self_attn.q_proj.bias"), lora, f"{l}.q_proj").view(B, T, nh, hd)
        k = linear(h, g("self_attn.k_proj.weight"), g("self_attn.k_proj.bias"), lora, f"{l}.k_proj").view(B, T, nkv, hd)
        v = linear(h, g("self_attn.v_proj.weight"), g("self_attn.v_proj.bias"), lora, f"{l}.v_proj").view(B, T, nkv, hd)
        if qwen3:
            q = rms_norm(q, g("self_attn.q_norm.weight"), eps)
            k = rms_norm(k, g("self_attn.k_norm.weight"), eps)
        q, k, v = q.transpose(1, 2), k.transpose(1, 2), v.transpose(1, 2)  # [B, heads, T, hd]
        q = q * cos + rotate_half(q) * sin
        k = k * cos + rotate_half(k) * sin
        rep = nh // nkv
        k = k.repeat_interleave(rep, dim=1)
        v = v.repeat_interleave(rep, dim=1)
        att = (q @ k.transpose(-1, -2)) / math.sqrt(hd) + mask  # [B, nh, T, T]
        o = (att.softmax(-1) @ v).transpose(1, 2).reshape(B, T, nh * hd)
        x = x + linear(o, g("self_attn.o_proj.weight"), g("self_attn.o_proj.bias"), lora, f"{l}.o_proj")
        h = rms_norm(x, g("post_attention_layernorm.weight"), eps)
        gate = linear(h, g("mlp.gate_proj.weight"), g("mlp.gate_proj.bias"), lora, f"{l}.gate_proj")
        up = linear(h, g("mlp.up_proj.weight"), g("mlp.up_proj.bias"), lora, f"{l}.up_proj")
        x = x + linear(F.silu(gate) * up, g("mlp.down_proj.weight"), g("mlp.down_proj.bias"), lora, f"{l}.down_proj")
    if last_only:
        x = x[:, -1:]
    x = rms_norm(x, w["model.norm.weight"], eps)
    head = w.get("lm_head.weight", w["model.embed_tokens.weight"])
    return x @ head.t()


def forward_bf16(cfg, w, ids):
    """The forward pass as PyTorch runs a model loaded with torch_dtype=bfloat16 (transformers'
    conventions): weights and activations bfloat16, products accumulated in float32 and rounded
    to bfloat16, RMSNorm and softmax computed in float32 and rounded back. Returns float32 logits."""
    bf = torch.bfloat16
    wb = {k: v.to(bf) for k, v in w.items()}
    B, T = ids.shape
    nh, nkv, hd = cfg["num_attention_heads"], cfg["num_key_value_heads"], head_dim(cfg)
    eps = cfg["rms_norm_eps"]
    qwen3 = cfg["architectures"][0] == "Qwen3ForCausalLM"

    def norm(x, weight):
        xf = x.float()
        return weight * (xf * torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + eps)).to(bf)

    cos, sin = (t.to(bf) for t in rope_tables(cfg, torch.arange(T)))
    mask = torch.full((T, T), float("-inf")).triu(1)
    x = wb["model.embed_tokens.weight"][ids]
    for l in range(cfg["num_hidden_layers"]):
        p = f"model.layers.{l}."
        g = lambda name: wb.get(p + name)  # noqa: E731
        h = norm(x, g("input_layernorm.weight"))
        q = linear(h, g("self_attn.q_proj.weight"), g("self_attn.q_proj.bias")).view(B, T, nh, hd)
        k = linear(h, g("self_attn.k_proj.weight"), g("self_attn.k_proj.bias")).view(B, T, nkv, hd)
        v = linear(h, g("self_attn.v_proj.weight"), g("self_attn.v_proj.bias")).view(B, T, nkv, hd)
        if qwen3:
            q = norm(q, g("self_attn.q_norm.weight"))
            k = norm(k, g("self_attn.k_norm.weight"))
        q, k, v = q.transpose(1, 2), k.transpose(1, 2), v.transpose(1, 2)
        q = q * cos + rotate_half(q) * sin
        k = k * cos + rotate_half(k) * sin
        k = k.repeat_interleave(nh // nkv, dim=1)
        v = v.repeat_interleave(nh // nkv, dim=1)
        att = (q @ k.transpose(-1, -2)) / math.sqrt(hd)
        probs = (att.float() + mask).softmax(-1).to(bf)
        o = (probs @ v).transpose(1, 2).reshape(B, T, nh * hd)
        x = x + linear(o, g("self_attn.o_proj.weight"), g("self_attn.o_proj.bias"))
        h = norm(x, g("post_attention_layernorm.weight"))
        gate = linear(h, g("mlp.gate_proj.weight"), g("mlp.gate_proj.bias"))
        up = linear(h, g("mlp.up_proj.weight"), g("mlp.up_proj.bias"))
        x = x + linear(F.silu(gate) * up, g("mlp.down_proj.weight"), g("mlp.down_proj.bias"))
    x = norm(x, wb["model.norm.weight"])
    head = wb.get("lm_head.weight", wb["model.embed_tokens.weight"])
    return (x @ head.t()).float()


def token_logprobs(logits, ids):
    """log p(ids[:, t] | ids[:, <t]) for t >= 1: [B, T-1]."""
    lp = logits[:, :-1].log_softmax(-1)
    return lp.gather(-1, ids[:, 1:, None])[..., 0]


@torch.no_grad()
def greedy(cfg, w, prompt, n):
    ids = list(prompt)
    for _ in range(n):
        logits = forward(cfg, w, torch.tensor([ids]))
        ids.append(int(logits[0, -1].argmax()))
    return ids[len(prompt):]

