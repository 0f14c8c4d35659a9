"""`lazax run --stablehlo` and `lazax export` through the CLI.

1. The MLP fixture (tests/stablehlo/fixtures/mlp.mlir) run with --grad and --jvp against the
   same computation in PyTorch: the value, each gradient and the forward-mode derivative
   (torch's gradients dotted with the tangents) within 1e-5.
2. Each .lzir seed program of tests/fuzz/seeds that has a StableHLO counterpart exported, then
   run with --stablehlo on the inputs `lazax run` of the .lzir gets: the same outputs exactly.
   A seed with a primitive that has none must fail the export naming it, writing no file.
3. `lazax export --vjp` of examples/mlp.lzir, run with --stablehlo on (x, w, cotangent): the
   gradients torch's vjp gives, within 1e-5.
4. The threefry fixture on uint32 inputs: Random123's known answers in lane 0, and every lane
   against threefry2x32 written in Python from the spec.
5. Usage errors: neither PROGRAM nor --stablehlo, and both."""
import os
import subprocess
import sys

import numpy as np
import torch

lazax, scratch = sys.argv[1], sys.argv[2]
here = os.path.dirname(os.path.abspath(__file__))
root = os.path.dirname(os.path.dirname(here))
os.makedirs(scratch, exist_ok=True)
rng = np.random.default_rng(29)
failures = []


def save(name, a):
    path = os.path.join(scratch, name)
    np.save(path, a)
    return path


def run(args, ok=True):
    p = subprocess.run([lazax] + args, capture_output=True, text=True)
    if ok and p.returncode != 0:
        raise SystemExit(f"lazax {' '.join(args)} failed:\n{p.stderr}")
    return p


# 1. run --stablehlo against PyTorch.
shapes = [(4, 3), (3, 5), (5,), (5, 2)]
xs = [rng.standard_normal(s).astype(np.float32) for s in shapes]
ts = [rng.standard_normal(s).astype(np.float32) for s in shapes]
ins = ",".join(save(f"mlp_in{i}.npy", a) for i, a in enumerate(xs))
tans = ",".join(save(f"mlp_t{i}.npy", a) for i, a in enumerate(ts))
out = os.path.join(scratch, "mlp_out")
run(["run", "--stablehlo", os.path.join(root, "tests/stablehlo/fixtures/mlp.mlir"),
     "--inputs", ins, "--out", out, "--grad", "--jvp", tans])
tx = [torch.tensor(a, requires_grad=True) for a in xs]
o = torch.tanh(tx[0] @ tx[1] + tx[2]) @ tx[3]
loss = (o * o).sum()
loss.backward()
worst = abs(float(np.load(os.path.join(out, "out0.npy"))) - loss.item())
for i, t in enumerate(tx):
    g = np.load(os.path.join(out, f"grad{i}.npy"))
    worst = max(worst, float(np.abs(g - t.grad.numpy()).max()))
jvp = sum(float((t.grad * torch.tensor(v)).sum()) for t, v in zip(tx, ts))
worst = max(worst, abs(float(np.load(os.path.join(out, "tangent0.npy"))) - jvp))
print(f"run --stablehlo mlp.mlir: worst |diff| against torch {worst:.2e}")
if worst > 1e-5:
    failures.append("mlp against torch")


# 2. export, then run --stablehlo against run of the .lzir.
def inputs_for(types):
    paths = []
    for k, (dt, dims) in enumerate(types):
        a = rng.standard_normal(dims).astype(np.float32)
        if dt == "bool":
            a = a > 0
        elif dt != "f32":
            a = (a > 0).astype(np.int32 if dt == "i32" else np.int64)  # 0 or 1: valid indices
        paths.append(save(f"seed_in{k}.npy", a))
    return paths


seeds = os.path.join(root, "tests/fuzz/seeds")
checked = rejected = 0
for name in sorted(os.listdir(seeds)):
    if not name.endswith(".lzir"):
        continue
    src = os.path.join(seeds, name)
    mlir = os.path.join(scratch, name[:-5] + ".mlir")
    if os.path.exists(mlir):
        os.remove(mlir)
    p = run(["export", src, "--out", mlir], ok=False)
    if p.returncode != 0:
        if "has no StableHLO counterpart" in p.stderr or "[export]" in p.stderr:
            rejected += 1
            if os.path.exists(mlir):
                failures.append(f"{name}: a failed export left {mlir}")
            continue
        failures.append(f"{name}: export failed without naming why: {p.stderr}")
        continue
    text = open(mlir).read()
    sig = text[text.index("@main(") + 6:text.index(")", text.index("@main("))]
    types = []
    for part in filter(None, sig.split(", ")):
        t = part.split("tensor<")[1].rstrip(">").split("x")
        el = t[-1]
        dt = {"f32": "f32", "i1": "bool", "i32": "i32", "i64": "i64"}.get(el)
        if dt is None:
            break
        types.append((dt, [int(d) for d in t[:-1]]))
    else:
        ins = ",".join(inputs_for(types))
        a, b = os.path.join(scratch, "lzir_out"), os.path.join(scratch, "mlir_out")
        pa = run(["run", src, "--inputs", ins, "--out", a], ok=False)
        if pa.returncode != 0:
            continue  # inputs this script cannot make (indices out of range, ...)
        run(["run", "--stablehlo", mlir, "--inputs", ins, "--out", b])
        for f in sorted(os.listdir(a)):
            if not np.array_equal(np.load(os.path.join(a, f)), np.load(os.path.join(b, f)),
                                  equal_nan=True):
                failures.append(f"{name}: {f} differs after export")
        checked += 1
print(f"export: {checked} seed programs round-tripped through run --stablehlo, {rejected} rejected")
if checked < 10:
    failures.append(f"only {checked} seeds round-tripped")

# 3. export --vjp against torch's vjp.
vjp_mlir = os.path.join(scratch, "mlp_vjp.mlir")
run(["export", os.path.join(root, "examples/mlp.lzir"), "--out", vjp_mlir, "--vjp"])
x, w, ct = (rng.standard_normal(s).astype(np.float32) for s in ((2, 3), (3, 4), (2, 4)))
ins = ",".join(save(f"vjp_in{i}.npy", a) for i, a in enumerate((x, w, ct)))
out = os.path.join(scratch, "vjp_out")
run(["run", "--stablehlo", vjp_mlir, "--inputs", ins, "--out", out])
tx, tw = torch.tensor(x, requires_grad=True), torch.tensor(w, requires_grad=True)
torch.tanh(tx @ tw).backward(torch.tensor(ct))
worst = max(float(np.abs(np.load(os.path.join(out, f"out{i}.npy")) - t.grad.numpy()).max())
            for i, t in enumerate((tx, tw)))
print(f"export --vjp mlp.lzir: worst |diff| against torch {worst:.2e}")
if worst > 1e-5:
    failures.append("export --vjp against torch")

# 4. The threefry fixture (JAX's threefry2x32 lowering) on uint32 .npy inputs against threefry2x32
# written here in Python from the spec, and Random123's known answers in lane 0.
def threefry(k0, k1, x0, x1):
    m = 0xFFFFFFFF
    ks = [k0, k1, k0 ^ k1 ^ 0x1BD11BDA]
    x0, x1 = (x0 + ks[0]) & m, (x1 + ks[1]) & m
    for r, d in enumerate([13, 15, 26, 6, 17, 29, 16, 24] * 2 + [13, 15, 26, 6]):
        x0 = (x0 + x1) & m
        x1 = (((x1 << d) | (x1 >> (32 - d))) & m) ^ x0
        if r % 4 == 3:
            s = r // 4 + 1
            x0, x1 = (x0 + ks[s % 3]) & m, (x1 + ks[(s + 1) % 3] + s) & m
    return x0, x1


kats = [((0, 0), (0, 0), (0x6B200159, 0x99BA4EFE)),
        ((0xFFFFFFFF, 0xFFFFFFFF), (0xFFFFFFFF, 0xFFFFFFFF), (0x1CB996FC, 0xBB002BE7)),
        ((0x13198A2E, 0x03707344), (0x243F6A88, 0x85A308D3), (0xC4923A9C, 0x483DF7A0))]
bad = 0
for n, (key, ctr, kat) in enumerate(kats):
    c0 = np.array([ctr[0]] + list(rng.integers(0, 2**32, 3)), dtype=np.uint32)
    c1 = np.array([ctr[1]] + list(rng.integers(0, 2**32, 3)), dtype=np.uint32)
    out = os.path.join(scratch, f"threefry_out{n}")
    run(["run", "--stablehlo", os.path.join(root, "tests/stablehlo/fixtures/threefry.mlir"),
         "--inputs", ",".join([save(f"tf_key{n}.npy", np.array(key, dtype=np.uint32)),
                               save(f"tf_c0_{n}.npy", c0), save(f"tf_c1_{n}.npy", c1)]),
         "--out", out])
    y0, y1 = (np.load(os.path.join(out, f"out{k}.npy")) for k in (0, 1))
    want = [threefry(key[0], key[1], int(a), int(b)) for a, b in zip(c0, c1)]
    bad += int((int(y0[0]), int(y1[0])) != kat)
    bad += sum((int(a), int(b)) != w for a, b, w in zip(y0, y1, want))
print(f"run --stablehlo threefry.mlir: {bad} words differ from the known answers and Python")
if bad:
    failures.append("threefry.mlir against the known answers")

# 5. Usage errors.
for args, want in ((["run", "--out", scratch], "PROGRAM is required"),
                   (["run", "x.lzir", "--stablehlo", "y.mlir", "--out", scratch], "excludes")):
    p = run(args, ok=False)
    if p.returncode == 0 or want not in p.stderr:
        failures.append(f"lazax {' '.join(args)}: rc {p.returncode}, {p.stderr!r}")

for f in failures:
    print("FAIL:", f)
sys.exit(1 if failures else 0)
