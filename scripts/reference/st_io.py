"""Minimal safetensors reader/writer for the reference scripts.

The `safetensors` Python package is not installable on the build machines (no PyPI), so the
reference writes the format by hand: an 8-byte little-endian header length, a JSON header
{name: {dtype, shape, data_offsets}}, then the raw little-endian tensor bytes.
"""
import json
import struct

import torch

_DTYPES = {torch.float32: "F32", torch.float16: "F16", torch.bfloat16: "BF16", torch.int64: "I64", torch.int32: "I32"}
_TORCH = {v: k for k, v in _DTYPES.items()}


def _raw_bytes(t: torch.Tensor) -> bytes:
    t = t.detach().contiguous().cpu()
    if t.dtype == torch.bfloat16:
        # numpy has no bfloat16: reinterpret the bits as int16.
        return t.view(torch.int16).numpy().tobytes()
    return t.numpy().tobytes()


def save(tensors: dict, path: str, metadata: dict | None = None) -> None:
    header = {}
    if metadata:
        header["__metadata__"] = {k: str(v) for k, v in metadata.items()}
    offset = 0
    blobs = []
    for name in sorted(tensors):
        t = tensors[name]
        raw = _raw_bytes(t)
        header[name] = {"dtype": _DTYPES[t.dtype], "shape": list(t.shape), "data_offsets": [offset, offset + len(raw)]}
        blobs.append(raw)
        offset += len(raw)
    head = json.dumps(header, separators=(",", ":")).encode()
    head += b" " * ((8 - len(head) % 8) % 8)  # align data to 8 bytes, as the reference writer does
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(head)))
        f.write(head)
        for b in blobs:
            f.write(b)


def load(path: str) -> dict:
    with open(path, "rb") as f:
        (n,) = struct.unpack("<Q", f.read(8))
        header = json.loads(f.read(n))
        base = 8 + n
        out = {}
        for name, info in header.items():
            if name == "__metadata__":
                continue
            start, end = info["data_offsets"]
            f.seek(base + start)
            raw = bytearray(f.read(end - start))
            dtype = _TORCH[info["dtype"]]
            if dtype == torch.bfloat16:
                t = torch.frombuffer(raw, dtype=torch.int16).view(torch.bfloat16)
            else:
                t = torch.frombuffer(raw, dtype=dtype)
            out[name] = t.reshape(info["shape"]).clone()
        return out
