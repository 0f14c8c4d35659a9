"""Each hand-written StableHLO fixture (tests/stablehlo/fixtures/) run by stablehlo_driver on
random inputs, against the same computation in PyTorch: the value and the gradient of every f32
input within 1e-5."""
import os
import subprocess
import sys

import numpy as np
import torch

driver, scratch = sys.argv[1], sys.argv[2]
here = os.path.dirname(os.path.abspath(__file__))
torch.set_default_dtype(torch.float32)


def mlp(x, w1, b1, w2):
    o = torch.tanh(x @ w1 + b1) @ w2
    return (o * o).sum()


def rms_norm(x, w):
    r = torch.rsqrt((x * x).sum(1) / 8.0 + 1e-6)
    return (x * r[:, None] * w * torch.arange(8.0)[None, :]).sum()


def cross_entropy(logits, labels):
    return torch.nn.functional.cross_entropy(logits, labels.long())


def attention(q, k, v):
    p = torch.softmax((q @ k.T) * np.float32(0.353553385), dim=1)
    w = torch.arange(4.0)[:, None] + torch.arange(8.0)[None, :]
    return ((p @ v) * w).sum()


rng = np.random.default_rng(29)
f32 = lambda *s: rng.standard_normal(s).astype(np.float32)
cases = {
    "mlp": (mlp, [f32(4, 3), f32(3, 5), f32(5), f32(5, 2)]),
    "rms_norm": (rms_norm, [f32(3, 8), f32(8)]),
    "cross_entropy": (cross_entropy, [f32(4, 6), np.array([0, 5, 2, 3], np.int32)]),
    "attention": (attention, [f32(4, 8), f32(4, 8), f32(4, 8)]),
}
failures = 0
for name, (fn, inputs) in cases.items():
    d = os.path.join(scratch, name)
    os.makedirs(d, exist_ok=True)
    paths = []
    for i, a in enumerate(inputs):
        paths.append(os.path.join(d, f"in{i}.npy"))
        np.save(paths[-1], a)
    subprocess.run([driver, os.path.join(here, "fixtures", name + ".mlir"), d] + paths, check=True)
    ts = [torch.tensor(a, requires_grad=a.dtype == np.float32) for a in inputs]
    ref = fn(*ts)
    ref.backward()
    got = np.load(os.path.join(d, "out0.npy"))
    err = float(abs(got - ref.detach().numpy()))
    worst = err
    for i, t in enumerate(ts):
        if t.requires_grad:
            g = np.load(os.path.join(d, f"grad{i}.npy"))
            worst = max(worst, float(np.max(np.abs(g - t.grad.numpy()))))
    ok = worst <= 1e-5
    failures += not ok
    print(f"{name}: value {got} vs {ref.item()}, worst |diff| {worst:.2e} {'ok' if ok else 'FAIL'}")
sys.exit(1 if failures else 0)
