#!/usr/bin/python3
"""Agreement of lazax's nn modules with PyTorch on the same weights and inputs.

usage: torch_nn.py PATH/TO/nn_torch_driver SCRATCH_DIR
For each case, builds the module in PyTorch (reference definitions below, written from issue 17's
model description, with the same parameter names), writes its state dict, an input and a
cotangent as .npy, runs the driver, and compares the output and the gradients of sum(out * ct)
(for the whole Llama: the loss and its gradients, in each layer mode) with PyTorch's, computed in
float64: max |lazax - torch| <= 1e-4 * max |torch| per tensor. Prints one line per case.
"""
import json
import math
import os
import shutil
import subprocess
import sys

import numpy as np
import torch
from torch import nn

DRIVER, SCRATCH = sys.argv[1], sys.argv[2]
RTOL = 1e-4


class RMSNorm(nn.Module):
    def __init__(self, dim, eps=1e-5):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(dim))

    def forward(self, x):
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps) * self.weight


def rotary(x, theta=10000.0):
    t, hd = x.shape[-2], x.shape[-1]
    inv = (1.0 / theta ** (torch.arange(0, hd, 2, dtype=torch.float64) / hd)).float()
    freqs = torch.arange(t, dtype=torch.float32)[:, None] * inv[None, :]
    emb = torch.cat([freqs, freqs], -1).to(x.dtype)
    x1, x2 = x[..., : hd // 2], x[..., hd // 2:]
    return x * emb.cos() + torch.cat([-x2, x1], -1) * emb.sin()


class Attention(nn.Module):
    def __init__(self, dim, heads):
        super().__init__()
        self.heads = heads
        self.wq = nn.Linear(dim, dim, bias=False)
        self.wk = nn.Linear(dim, dim, bias=False)
        self.wv = nn.Linear(dim, dim, bias=False)
        self.wo = nn.Linear(dim, dim, bias=False)

    def forward(self, x):
        b, t, d = x.shape
        hd = d // self.heads

        def split(w):
            return w(x).view(b, t, self.heads, hd).transpose(1, 2)

        q, k, v = rotary(split(self.wq)), rotary(split(self.wk)), split(self.wv)
        s = q @ k.transpose(-2, -1) / math.sqrt(hd)
        mask = torch.ones(t, t, dtype=torch.bool).tril()
        s = s.masked_fill(~mask, float("-inf"))
        o = torch.softmax(s, -1) @ v
        return self.wo(o.transpose(1, 2).reshape(b, t, d))


class FeedForward(nn.Module):
    def __init__(self, dim, hidden):
        super().__init__()
        self.w1 = nn.Linear(dim, hidden, bias=False)
        self.w2 = nn.Linear(hidden, dim, bias=False)
        self.w3 = nn.Linear(dim, hidden, bias=False)

    def forward(self, x):
        return self.w2(torch.nn.functional.silu(self.w1(x)) * self.w3(x))


class Block(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.attention_norm = RMSNorm(c["dim"])
        self.attention = Attention(c["dim"], c["heads"])
        self.ffn_norm = RMSNorm(c["dim"])
        self.feed_forward = FeedForward(c["dim"], c["hidden"])

    def forward(self, h):
        h = h + self.attention(self.attention_norm(h))
        return h + self.feed_forward(self.ffn_norm(h))


class Llama(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.tok_embeddings = nn.Embedding(256, c["dim"])
        self.layers = nn.ModuleList([Block(c) for _ in range(c["n_layers"])])
        self.norm = RMSNorm(c["dim"])
        self.output = nn.Linear(c["dim"], 256, bias=False)

    def forward(self, tokens):
        x, y = tokens[:, :-1], tokens[:, 1:]
        h = self.tok_embeddings(x)
        for layer in self.layers:
            h = layer(h)
        logits = self.output(self.norm(h))
        return torch.nn.functional.cross_entropy(logits.reshape(-1, 256), y.reshape(-1))


LLAMA = {"dim": 32, "n_layers": 2, "heads": 4, "hidden": 48}
B, T = 2, 8


def cases():
    yield "linear", {"in": 12, "out": 5, "bias": True}, nn.Linear(12, 5), [B, T, 12]
    yield "linear", {"in": 12, "out": 5, "bias": False}, nn.Linear(12, 5, bias=False), [3, 12]
    yield "embedding", {"num": 20, "dim": 6}, nn.Embedding(20, 6), ("ids", 20, [B, T])
    yield "rmsnorm", {"dim": 16, "eps": 1e-5}, RMSNorm(16), [B, T, 16]
    yield "layernorm", {"dim": 16, "eps": 1e-5}, nn.LayerNorm(16), [B, T, 16]
    yield "attention", {"dim": 32, "heads": 4}, Attention(32, 4), [B, T, 32]
    yield "feed_forward", {"dim": 32, "hidden": 48}, FeedForward(32, 48), [B, T, 32]
    yield "block", dict(LLAMA), Block(LLAMA), [B, T, 32]
    for mode in ("lazy", "assume_pure", "scan"):
        yield "llama", dict(LLAMA, mode=mode), Llama(LLAMA), ("ids", 256, [B, T + 1])


def close(name, got, want, failures):
    err = float(np.max(np.abs(got.astype(np.float64) - want))) if want.size else 0.0
    scale = float(np.max(np.abs(want))) if want.size else 0.0
    if got.shape != want.shape or not err <= RTOL * scale + 1e-7:
        failures.append(f"{name}: shape {got.shape} vs {want.shape}, max error {err:.3g} "
                        f"against max |torch| {scale:.3g}")
    return err / scale if scale else err


def main():
    shutil.rmtree(SCRATCH, ignore_errors=True)
    failures, worst = [], 0.0
    for n, (module, cfg, ref, xspec) in enumerate(cases()):
        torch.manual_seed(n)
        with torch.no_grad():  # norms not all ones, so that their gradients are tested
            for name, p in ref.named_parameters():
                if name.endswith("norm.weight") or name == "weight" and module in ("rmsnorm",
                                                                                   "layernorm"):
                    p.add_(0.2 * torch.randn_like(p))
        d = os.path.join(SCRATCH, f"{n}_{module}_{cfg.get('mode', '')}")
        os.makedirs(os.path.join(d, "params"))
        cfg = dict(cfg, module=module)
        with open(os.path.join(d, "case.json"), "w") as f:
            json.dump(cfg, f)
        for name, p in ref.state_dict().items():
            np.save(os.path.join(d, "params", name + ".npy"), p.numpy().astype(np.float32))
        if isinstance(xspec, tuple):
            x = torch.randint(0, xspec[1], xspec[2])
        else:
            x = torch.randn(xspec)
        np.save(os.path.join(d, "x.npy"), x.numpy())
        ref = ref.double()
        xr = x.double().requires_grad_() if x.is_floating_point() else x
        out = ref(xr)
        if module == "llama":
            loss = out
        else:
            ct = torch.randn(out.shape)
            np.save(os.path.join(d, "ct.npy"), ct.numpy())
            loss = (out * ct.double()).sum()
        loss.backward()
        r = subprocess.run([DRIVER, d], capture_output=True, text=True)
        label = f"{module} {cfg}"
        if r.returncode != 0:
            failures.append(f"{label}: driver failed: {r.stderr.strip()}")
            continue
        before = len(failures)
        e = close(f"{label} output", np.load(os.path.join(d, "out.npy")),
                  out.detach().numpy(), failures)
        worst = max(worst, e)
        if x.is_floating_point():
            e = close(f"{label} grad x", np.load(os.path.join(d, "grad_x.npy")),
                      xr.grad.numpy(), failures)
            worst = max(worst, e)
        names = [name for name, _ in ref.named_parameters()]
        got_names = sorted(f[:-4] for f in os.listdir(os.path.join(d, "grads")))
        if sorted(names) != got_names:
            failures.append(f"{label}: parameter names {got_names} vs torch's {sorted(names)}")
        for name, p in ref.named_parameters():
            path = os.path.join(d, "grads", name + ".npy")
            if os.path.exists(path):
                worst = max(worst, close(f"{label} grad {name}", np.load(path),
                                         p.grad.numpy(), failures))
        extra = f" loss {float(out):.6f}" if module == "llama" else ""
        print(f"{'ok  ' if len(failures) == before else 'FAIL'} {label}{extra}")
    for f in failures:
        print("FAIL", f)
    print(f"{len(failures)} failures; worst relative error {worst:.3g} (tolerance {RTOL})")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
