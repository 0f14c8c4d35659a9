#!/usr/bin/python3
"""PyTorch's side of `lazax bench train`: the model of issue 17 (tests/apps/train_torch_model.py)
trained with AdamW from the same safetensors weights on the same .npy batches, eager or
TorchScript (torch.jit.trace of the loss). Prints one JSON object: ms_per_step (mean of the
steps after the warm-up), peak_rss_mb (VmHWM), blas (the BLAS library this process mapped).

usage: torch_train.py INIT.safetensors BATCHES.npy --layers L --heads H --threads N
                      --warmup W --steps S --lr LR --mode eager|script
"""
import argparse
import json
import os
import struct
import sys
import time

import numpy as np
import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "apps"))
import train_torch_model as tm  # noqa: E402


def read_safetensors(path):
    with open(path, "rb") as f:
        data = f.read()
    n = struct.unpack("<Q", data[:8])[0]
    header = json.loads(data[8:8 + n])
    out = {}
    for name, e in header.items():
        if name == "__metadata__" or name.startswith("optim."):
            continue
        a, b = e["data_offsets"]
        out[name] = np.frombuffer(data[8 + n + a:8 + n + b], dtype=np.float32).reshape(e["shape"])
    return out


def blas_library():
    libs = set()
    with open("/proc/self/maps") as f:
        for line in f:
            p = line.split()[-1]
            base = os.path.basename(p)
            if any(k in base for k in ("blas", "mkl", "lapack")):
                libs.add(os.path.realpath(p))
    return ",".join(sorted(libs)) or "none"


def peak_rss_mb():
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    return None


class Model(torch.nn.Module):
    def __init__(self, weights, layers, heads):
        super().__init__()
        self.names = list(weights)
        self.params = torch.nn.ParameterList([torch.nn.Parameter(torch.tensor(weights[k]))
                                              for k in self.names])
        self.layers, self.heads = layers, heads

    def forward(self, tokens):
        return tm.loss_fn(dict(zip(self.names, self.params)), tokens, self.layers, self.heads)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("init")
    ap.add_argument("batches")
    for k in ("layers", "heads", "threads", "warmup", "steps"):
        ap.add_argument("--" + k, type=int, required=True)
    ap.add_argument("--lr", type=float, default=1e-3)
    # autocast: eager under torch.autocast("cpu", dtype=torch.bfloat16) (f32 weights, AdamW f32)
    ap.add_argument("--mode", choices=["eager", "script", "autocast"], default="eager")
    a = ap.parse_args()
    torch.set_num_threads(a.threads)
    model = Model(read_safetensors(a.init), a.layers, a.heads)
    batches = torch.tensor(np.load(a.batches), dtype=torch.long)
    fn = model
    if a.mode == "script":
        fn = torch.jit.trace(model, (batches[0],))
    opt = torch.optim.AdamW(model.parameters(), lr=a.lr, weight_decay=0.01)
    times, losses = [], []
    for s in range(a.warmup + a.steps):
        t0 = time.perf_counter()
        opt.zero_grad()
        with torch.autocast("cpu", dtype=torch.bfloat16, enabled=a.mode == "autocast"):
            loss = fn(batches[s])
        loss.backward()
        opt.step()
        losses.append(loss.item())
        times.append((time.perf_counter() - t0) * 1000)
    steady = times[a.warmup:]
    # forward only (the loss, no gradient): the mean of 5 passes after 2
    infer = []
    with torch.no_grad():
        for s in range(7):
            t0 = time.perf_counter()
            with torch.autocast("cpu", dtype=torch.bfloat16, enabled=a.mode == "autocast"):
                fn(batches[s % min(len(batches), 4)]).item()
            infer.append((time.perf_counter() - t0) * 1000)
    print(json.dumps({"ms_per_step": sum(steady) / len(steady), "peak_rss_mb": peak_rss_mb(),
                      "infer_ms": sum(infer[2:]) / 5,
                      "blas": blas_library(), "mode": a.mode, "threads": torch.get_num_threads(),
                      "first_loss": losses[0], "last_loss": losses[-1]}))


if __name__ == "__main__":
    main()
