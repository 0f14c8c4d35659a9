"""The model of issue 17 in PyTorch (the reference `lazax train` is compared with), and helpers
to write its weights as safetensors and to train it with AdamW on given batches."""
import json
import math
import struct
import subprocess

import numpy as np
import torch


def param_shapes(dim, layers, heads, hidden, vocab=256):
    shapes = {"tok_embeddings.weight": (vocab, dim)}
    for i in range(layers):
        p = f"layers.{i}."
        shapes[p + "attention_norm.weight"] = (dim,)
        for w in "qkvo":
            shapes[p + f"attention.w{w}.weight"] = (dim, dim)
        shapes[p + "ffn_norm.weight"] = (dim,)
        shapes[p + "feed_forward.w1.weight"] = (hidden, dim)
        shapes[p + "feed_forward.w2.weight"] = (dim, hidden)
        shapes[p + "feed_forward.w3.weight"] = (hidden, dim)
    shapes["norm.weight"] = (dim,)
    shapes["output.weight"] = (vocab, dim)
    return shapes


def random_weights(shapes, seed):
    rng = np.random.default_rng(seed)
    out = {}
    for name, shape in shapes.items():
        if name.endswith("norm.weight"):
            w = 1 + 0.1 * rng.standard_normal(shape)
        elif name == "tok_embeddings.weight":
            w = rng.standard_normal(shape)
        else:
            bound = 1 / math.sqrt(shape[1])
            w = rng.uniform(-bound, bound, shape)
        out[name] = w.astype(np.float32)
    return out


def write_safetensors(path, tensors):
    header, offset, blobs = {}, 0, []
    for name, a in tensors.items():
        b = np.ascontiguousarray(a, dtype=np.float32).tobytes()
        header[name] = {"dtype": "F32", "shape": list(a.shape), "data_offsets": [offset, offset + len(b)]}
        offset += len(b)
        blobs.append(b)
    h = json.dumps(header).encode()
    h += b" " * ((8 - len(h) % 8) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(h)) + h + b"".join(blobs))


def rmsnorm(x, w, eps=1e-5):
    return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + eps) * w


def rotary(x, theta=10000.0):  # x [B, H, T, hd], rotate-half pairs (i, i + hd/2)
    hd, t = x.shape[-1], x.shape[-2]
    freqs = theta ** (-torch.arange(0, hd // 2, dtype=torch.float64) * 2 / hd)
    ang = torch.arange(t, dtype=torch.float64)[:, None] * freqs[None, :]
    cos = torch.cat([ang.cos(), ang.cos()], -1).float()
    sin = torch.cat([ang.sin(), ang.sin()], -1).float()
    x1, x2 = x[..., : hd // 2], x[..., hd // 2:]
    return x * cos + torch.cat([-x2, x1], -1) * sin


def loss_fn(p, tokens, layers, heads):
    inp, tgt = tokens[:, :-1], tokens[:, 1:]
    h = p["tok_embeddings.weight"][inp]
    b, t, dim = h.shape
    hd = dim // heads
    mask = torch.full((t, t), float("-inf")).triu(1)
    for i in range(layers):
        q = f"layers.{i}."
        x = rmsnorm(h, p[q + "attention_norm.weight"])
        def proj(w):
            return (x @ p[q + f"attention.{w}.weight"].T).view(b, t, heads, hd).transpose(1, 2)
        qq, kk, vv = rotary(proj("wq")), rotary(proj("wk")), proj("wv")
        att = torch.softmax(qq @ kk.transpose(-1, -2) / math.sqrt(hd) + mask, -1)
        o = (att @ vv).transpose(1, 2).reshape(b, t, dim)
        h = h + o @ p[q + "attention.wo.weight"].T
        x = rmsnorm(h, p[q + "ffn_norm.weight"])
        ff = p[q + "feed_forward.w1.weight"]
        g = torch.nn.functional.silu(x @ ff.T) * (x @ p[q + "feed_forward.w3.weight"].T)
        h = h + g @ p[q + "feed_forward.w2.weight"].T
    logits = rmsnorm(h, p["norm.weight"]) @ p["output.weight"].T
    return torch.nn.functional.cross_entropy(logits.reshape(-1, logits.shape[-1]), tgt.reshape(-1))


def train_losses(weights, batches, layers, heads, lr, weight_decay, steps):
    p = {k: torch.tensor(v, requires_grad=True) for k, v in weights.items()}
    opt = torch.optim.AdamW(list(p.values()), lr=lr, weight_decay=weight_decay, foreach=False)
    losses = []
    for s in range(steps):
        opt.zero_grad()
        loss = loss_fn(p, torch.tensor(batches[s], dtype=torch.long), layers, heads)
        loss.backward()
        opt.step()
        losses.append(loss.item())
    return losses


def make_run_inputs(text, size, steps, seed, init_path, batches_path):
    """Weights (from `seed`) and `steps` batches of size["batch"] windows of `text` (from
    seed + 1) for a model of `size`, written to init_path (safetensors) and batches_path (.npy)
    for `lazax train --init --batches`."""
    weights = random_weights(
        param_shapes(size["dim"], size["layers"], size["heads"], size["hidden"]), seed=seed)
    write_safetensors(init_path, weights)
    rng = np.random.default_rng(seed + 1)
    starts = rng.integers(0, len(text) - size["seq"] - 1, (steps, size["batch"]))
    batches = np.stack([[text[s:s + size["seq"] + 1] for s in row] for row in starts])
    np.save(batches_path, batches)
    return weights, batches


def lazax_train(lazax, size, init_path, batches_path, lr, weight_decay, log_path, *extra):
    """`lazax train` of a model of `size` from those files with PyTorch's settings (AdamW, a
    constant learning rate, no clipping) and `extra` flags; its log's records, one per step."""
    args = [lazax, "train", "--dim", str(size["dim"]), "--layers", str(size["layers"]),
            "--heads", str(size["heads"]), "--hidden", str(size["hidden"]),
            "--init", init_path, "--batches", batches_path,
            "--schedule", "constant", "--clip", "0", "--optimizer", "adamw",
            "--lr", str(lr), "--weight-decay", str(weight_decay), "--log", log_path,
            "--svg", "", "--sample", "0", "--quiet", *extra]
    r = subprocess.run(args, capture_output=True, text=True, timeout=600)
    if r.returncode != 0:
        print(r.stdout, r.stderr)
        raise SystemExit(f"lazax train {' '.join(extra)} failed ({r.returncode})")
    with open(log_path) as f:
        return [json.loads(line) for line in f]


def checkpoint_dtypes(path):
    """The dtypes of a safetensors file's tensors."""
    with open(path, "rb") as f:
        n = int.from_bytes(f.read(8), "little")
        header = json.loads(f.read(n))
    return {v["dtype"] for k, v in header.items() if k != "__metadata__"}
