"""Each hand-written StableHLO fixture (tests/stablehlo/fixtures/) run by stablehlo_driver on
random inputs, against the same computation in PyTorch: the value, the gradient of every f32
input and the derivative along a tangent of ones (lazax's forward mode against torch's gradient
summed) within 1e-5. The while loop has no reverse mode in lazax (as in JAX): its value and
forward-mode derivative are checked. The case fixture runs for each index, a negative and a too
large one included (StableHLO: both run the last branch)."""
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


def while_loop(x, w):
    for i in range(3):
        x = torch.tanh(x * w + i)
    return x.sum()


def case(index, x, w):
    i = int(index)
    branch = i if 0 <= i < 3 else 2
    if branch == 0:
        a = torch.sin(x).sum()
    elif branch == 1:
        a = (x * w[None, :]).sum()
    else:
        a = (torch.tanh(w) ** 2).sum()
    b = torch.exp(w).sum() if i == 1 else (w * w).sum()
    return a + b


def gather_scatter(table, ids, u):
    i = ids.long() % 10  # a negative id wraps, as in JAX
    s = torch.zeros(10, 4).index_add(0, i, u)
    g = table[i]
    return ((g * u) ** 2).sum() + (s * torch.tanh(table)).sum()


rng = np.random.default_rng(29)
f32 = lambda *s: rng.standard_normal(s).astype(np.float32)
cases = {
    "mlp": (mlp, [f32(4, 3), f32(3, 5), f32(5), f32(5, 2)]),
    "rms_norm": (rms_norm, [f32(3, 8), f32(8)]),
    "cross_entropy": (cross_entropy, [f32(4, 6), np.array([0, 5, 2, 3], np.int32)]),
    "attention": (attention, [f32(4, 8), f32(4, 8), f32(4, 8)]),
    "while": (while_loop, [f32(4), f32(4)]),
    # An id repeats (the scatter adds twice) and one is negative (it wraps).
    "gather_scatter": (gather_scatter, [f32(10, 4), np.array([3, 0, -1, 3, 7, 2], np.int32),
                                        f32(6, 4)]),
}
for i in (-1, 0, 1, 2, 7):
    cases[f"case@{i}"] = (case, [np.array(i, np.int32), f32(3, 4), f32(4)])
forward_only = {"while"}
failures = 0
for name, (fn, inputs) in cases.items():
    d = os.path.join(scratch, name)
    os.makedirs(d, exist_ok=True)
    paths = []
    for i, a in enumerate(inputs):
        paths.append(os.path.join(d, f"in{i}.npy"))
        np.save(paths[-1], a)
    fixture = os.path.join(here, "fixtures", name.split("@")[0] + ".mlir")
    flags = ["--forward-only"] if name in forward_only else []
    subprocess.run([driver, fixture, d] + flags + paths, check=True)
    ts = [torch.tensor(a, requires_grad=a.dtype == np.float32) for a in inputs]
    ref = fn(*ts)
    ref.backward()
    got = np.load(os.path.join(d, "out0.npy"))
    err = float(abs(got - ref.detach().numpy()))
    worst = err
    grads = [torch.zeros_like(t) if t.grad is None else t.grad for t in ts]  # None: unused
    summed = sum(float(g.sum()) for g, t in zip(grads, ts) if t.requires_grad)
    worst = max(worst, abs(float(np.load(os.path.join(d, "jvp.npy"))) - summed))
    for i, t in enumerate(ts):
        if t.requires_grad and name not in forward_only:
            g = np.load(os.path.join(d, f"grad{i}.npy"))
            worst = max(worst, float(np.max(np.abs(g - grads[i].numpy()))))
    ok = worst <= 1e-5
    failures += not ok
    print(f"{name}: value {got} vs {ref.item()}, worst |diff| {worst:.2e} {'ok' if ok else 'FAIL'}")
sys.exit(1 if failures else 0)
