"""PyTorch reference for ClawLoop's advantages and policy losses (docs/learning-loop.md §4).

Writes test/fixtures/rl/losses.json: for each case the inputs, the loss, its gradient with
respect to the logits, and the step metrics. Written independently of main/rl/losses.ts.
Run with Debian's PyTorch (python3-torch, the reference): `npm run fixtures`, which runs the
`python3` on PATH (on Debian, /usr/bin/python3).
"""
import json
import math
import os
import sys

try:
    import torch
except ImportError:
    sys.exit(f"{sys.executable} has no PyTorch. The reference is Debian's python3-torch: "
             "apt-get install python3-torch libopenblas0-pthread python3-jinja2, then run "
             "`npm run fixtures` with /usr/bin/python3 first on PATH.")

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
TAIL_EPS = 1e-12


def advantages(reward, teacher, old, w_rl, w_opd, clip, skip_confident=None):
    out = []
    for t in range(len(old)):
        a = 0.0 if reward is None else w_rl * reward
        if skip_confident is not None and math.exp(old[t]) >= skip_confident:
            a = 0.0  # the rollout policy was sure of this token: the sequence reward does not push it
        if teacher is not None:
            d = teacher[t] - old[t]
            if clip is not None:
                d = max(-clip, min(clip, d))
            a += w_opd * d
        out.append(a)
    return out


def per_sample_mean(values, mask, sample, B):
    total, n = 0.0, 0
    for b in range(B):
        sel = sample == b
        m = mask[sel]
        if m.sum() > 0:
            total = total + (values[sel] * m).sum() / m.sum()
            n += 1
    return total / max(n, 1) if n else torch.zeros(())


def case(name, gen, N, V, B, eps_low=0.2, eps_high=0.28, kl_coef=0.0, ent_coef=0.0, rkl=False, K=3, empty_sample=None):
    logits = (torch.randn(N, V, generator=gen) * 1.5).requires_grad_()
    targets = torch.randint(0, V, (N,), generator=gen)
    sample = torch.sort(torch.randint(0, B, (N,), generator=gen)).values
    mask = (torch.rand(N, generator=gen) > 0.2).float()
    if empty_sample is not None:
        mask[sample == empty_sample] = 0
    logp = torch.log_softmax(logits, -1)
    lp = logp.gather(1, targets[:, None])[:, 0]
    # Rollout log-probs near the current ones, so ratios fall on both sides of the clip range.
    old = (lp.detach() + torch.randn(N, generator=gen) * 0.35)
    adv = torch.randn(N, generator=gen)
    ref = lp.detach() + torch.randn(N, generator=gen) * 0.3
    ratio = torch.exp(lp - old)
    clipped = ratio.clamp(1 - eps_low, 1 + eps_high)
    pg = -torch.minimum(ratio * adv, clipped * adv)
    tok = pg
    d = ref - lp
    kl = torch.exp(d) - d - 1
    if kl_coef > 0:
        tok = tok + kl_coef * kl
    entropy = -(torch.exp(logp) * logp).sum(-1)
    if ent_coef > 0:
        tok = tok - ent_coef * entropy
    inputs = {}
    rkl_tok = torch.zeros(N)
    if rkl:
        tl = torch.log_softmax(torch.randn(N, V, generator=gen), -1)
        top = torch.topk(tl, K, dim=-1)
        ids, tlp = top.indices, top.values
        w = (torch.rand(N, generator=gen) > 0.4).float() * 0.7
        ls = logp.gather(1, ids)
        ls_tail = torch.log(torch.clamp(1 - torch.exp(ls).sum(-1), min=TAIL_EPS))
        lt_tail = torch.log(torch.clamp(1 - torch.exp(tlp).sum(-1), min=TAIL_EPS))
        rkl_tok = ((torch.exp(ls) * (ls - tlp)).sum(-1) + torch.exp(ls_tail) * (ls_tail - lt_tail)) * (w > 0).float()
        tok = tok + w * rkl_tok
        inputs.update(teacherTopIds=ids.tolist(), teacherTopLogprobs=tlp.tolist(), rklWeight=w.tolist())
    loss = per_sample_mean(tok, mask, sample, B)
    loss.backward()
    tm = lambda v: float((v * mask).sum() / max(float(mask.sum()), 1e-12))  # noqa: E731
    clipfrac = (((adv > 0) & (ratio > 1 + eps_high)) | ((adv < 0) & (ratio < 1 - eps_low))).float()
    return {
        "name": name, "config": {"epsLow": eps_low, "epsHigh": eps_high, "klCoef": kl_coef, "entropyCoef": ent_coef, "topKReverseKl": rkl},
        "numSamples": B, "logits": logits.detach().tolist(), "targets": targets.tolist(), "sample": sample.tolist(),
        "mask": mask.tolist(), "old": old.tolist(), "advantages": adv.tolist(), "ref": ref.tolist(), **inputs,
        "loss": float(loss), "grad_logits": logits.grad.tolist(),
        "metrics": {"pg_loss": float(per_sample_mean(pg.detach(), mask, sample, B)), "kl": tm(kl.detach()),
                    "entropy": tm(entropy.detach()), "reverse_kl": tm(rkl_tok.detach()), "clip_fraction": tm(clipfrac),
                    "ratio_mean": tm(ratio.detach()), "logprob_drift": tm((lp - old).abs().detach())},
    }


def main():
    gen = torch.Generator().manual_seed(1234)
    cases = [
        case("ppo_clip_both_sides", gen, N=24, V=9, B=3),
        case("ppo_with_kl", gen, N=20, V=9, B=4, kl_coef=0.02),
        case("ppo_with_entropy", gen, N=16, V=11, B=2, ent_coef=0.01),
        case("topk_reverse_kl", gen, N=18, V=13, B=3, rkl=True, K=4),
        case("empty_sample_excluded", gen, N=15, V=9, B=3, empty_sample=1),
        case("all_options", gen, N=22, V=10, B=4, kl_coef=0.05, ent_coef=0.02, rkl=True, K=3, eps_low=0.1, eps_high=0.3),
    ]
    adv_cases = []
    for reward, with_teacher, clip in [(1, False, None), (-1, False, None), (None, True, None), (None, True, 1.0), (1, True, 1.0), (-1, True, 0.5)]:
        old = (torch.randn(8, generator=gen) - 2).tolist()
        teacher = (torch.randn(8, generator=gen) * 2 - 2).tolist() if with_teacher else None
        for w_rl, w_opd in [(1.0, 1.0), (0.5, 2.0)]:
            adv_cases.append({"reward": reward, "teacher": teacher, "old": old, "wRl": w_rl, "wOpd": w_opd, "opdClip": clip,
                              "expected": advantages(reward, teacher, old, w_rl, w_opd, clip)})
    skip_gen = torch.Generator().manual_seed(7)
    for reward, with_teacher, skip in [(1, False, 0.3), (-1, True, 0.3), (-1, False, 0.5), (None, True, 0.5)]:
        old = (torch.randn(10, generator=skip_gen) * 1.5 - 1).tolist()
        teacher = (torch.randn(10, generator=skip_gen) - 1).tolist() if with_teacher else None
        adv_cases.append({"reward": reward, "teacher": teacher, "old": old, "wRl": 0.25, "wOpd": 1.0, "opdClip": None,
                          "rlSkipConfident": skip, "expected": advantages(reward, teacher, old, 0.25, 1.0, None, skip)})
    out = os.path.join(ROOT, "test", "fixtures", "rl")
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(out, "losses.json"), "w") as f:
        json.dump({"losses": cases, "advantages": adv_cases, "tail_eps": TAIL_EPS}, f)
    print(f"wrote {len(cases)} loss cases and {len(adv_cases)} advantage cases")


if __name__ == "__main__":
    main()
