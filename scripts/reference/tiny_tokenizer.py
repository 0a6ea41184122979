"""A tiny byte-level BPE tokenizer in Hugging Face `tokenizer.json` format, for test models.

256 byte tokens (GPT-2's byte-to-unicode map), a few dozen merges learned greedily from a small
text, and ChatML special tokens. The merges only have to be valid; tokenization itself is done
by the tokenizer library under test.
"""
import collections
import re

SPECIAL = ["<|endoftext|>", "<|im_start|>", "<|im_end|>"]
# Added but not "special": they are decoded even when special tokens are skipped (as in Qwen3).
MARKUP = ["<think>", "</think>", "<tool_call>", "</tool_call>", "<tool_response>", "</tool_response>"]

# The pre-tokenizer pattern Qwen2/Qwen3 use (single digits, so numbers split per digit).
SPLIT_REGEX = (
    r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*"
    r"|\s*[\r\n]+|\s+(?!\S)|\s+"
)

CORPUS = (
    "the quick brown fox jumps over the lazy dog. hello world! what is the answer? "
    "the user asked for three ideas and the assistant answered with three ideas. "
    "thank you, that is right. no, I meant something else. please try again. "
) * 4


def bytes_to_unicode():
    bs = list(range(ord("!"), ord("~") + 1)) + list(range(ord("¡"), ord("¬") + 1)) + list(range(ord("®"), ord("ÿ") + 1))
    cs = bs[:]
    n = 0
    for b in range(256):
        if b not in bs:
            bs.append(b)
            cs.append(256 + n)
            n += 1
    return {b: chr(c) for b, c in zip(bs, cs)}


def build(num_merges=40):
    b2u = bytes_to_unicode()
    vocab = {b2u[b]: i for i, b in enumerate(range(256))}
    # Rough pre-tokenization for training only (Python's re has no \p{L}).
    words = collections.Counter(re.findall(r" ?[A-Za-z]+| ?[0-9]| ?[^\sA-Za-z0-9]+|\s+", CORPUS))
    seqs = {w: [b2u[b] for b in w.encode()] for w in words}
    merges = []
    for _ in range(num_merges):
        pairs = collections.Counter()
        for w, s in seqs.items():
            for a, b in zip(s, s[1:]):
                pairs[(a, b)] += words[w]
        if not pairs:
            break
        (a, b), _ = max(pairs.items(), key=lambda kv: (kv[1], kv[0]))
        merges.append(f"{a} {b}")
        vocab[a + b] = len(vocab)
        for w, s in seqs.items():
            out, i = [], 0
            while i < len(s):
                if i + 1 < len(s) and s[i] == a and s[i + 1] == b:
                    out.append(a + b)
                    i += 2
                else:
                    out.append(s[i])
                    i += 1
            seqs[w] = out
    added = []
    for tok in SPECIAL + MARKUP:
        added.append({"id": len(vocab), "content": tok, "single_word": False, "lstrip": False, "rstrip": False,
                      "normalized": False, "special": tok in SPECIAL})
        vocab[tok] = len(vocab)
    byte_level = {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": False, "use_regex": False}
    tokenizer = {
        "version": "1.0",
        "truncation": None,
        "padding": None,
        "added_tokens": added,
        "normalizer": {"type": "NFC"},
        "pre_tokenizer": {"type": "Sequence", "pretokenizers": [
            {"type": "Split", "pattern": {"Regex": SPLIT_REGEX}, "behavior": "Isolated", "invert": False},
            byte_level,
        ]},
        "post_processor": byte_level,
        "decoder": byte_level,
        "model": {"type": "BPE", "dropout": None, "unk_token": None, "continuing_subword_prefix": "",
                  "end_of_word_suffix": "", "fuse_unk": False, "byte_fallback": False, "ignore_merges": False,
                  "vocab": vocab, "merges": merges},
    }
    return tokenizer


def tokenizer_config(chat_template):
    return {
        "add_bos_token": False,
        "add_prefix_space": False,
        "bos_token": None,
        "eos_token": "<|im_end|>",
        "pad_token": "<|endoftext|>",
        "unk_token": None,
        "clean_up_tokenization_spaces": False,
        "model_max_length": 4096,
        "tokenizer_class": "Qwen2Tokenizer",
        "chat_template": chat_template,
    }
