#!/usr/bin/python3
"""`lazax train` against PyTorch, its modes against each other, and resume against an
uninterrupted run.

usage: train_torch.py PATH/TO/lazax SCRATCH_DIR   (run by ctest as apps.train_torch)
With --init, --batches, --schedule constant, --clip 0 and AdamW, the per-step losses of each
--mode must match PyTorch training the same model from the same weights on the same batches:
1e-4 relative at step 1, 2e-3 over the first 20 steps. The modes must agree within f32 rounding,
and a run resumed from its step-10 checkpoint must log bit-identical losses.
"""
import os
import shutil
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import train_torch_model as tm  # noqa: E402

LAZAX, SCRATCH = sys.argv[1], sys.argv[2]
shutil.rmtree(SCRATCH, ignore_errors=True)
os.makedirs(SCRATCH)
STEPS, LR, WD = 20, 3e-3, 0.01
# The comparison with PyTorch and between modes runs on `tiny` with 2 layers (dim 256, 8 heads,
# MLP 768, batch 8, sequence 128), as the issue asks; the resume checks, which also run on the
# slow reference backend, on a small model.
TINY2 = dict(dim=256, layers=2, heads=8, hidden=768, batch=8, seq=128)
SMALL = dict(dim=32, layers=2, heads=4, hidden=64, batch=2, seq=16)


def path(name):
    return os.path.join(SCRATCH, name)


text = np.frombuffer(open(__file__, "rb").read(), dtype=np.uint8).astype(np.int64)


def make_inputs(name, size, seed):
    """Weights and batches for a size, written as NAME_init.safetensors and NAME_batches.npy."""
    return tm.make_run_inputs(text, size, STEPS, seed, path(f"{name}_init.safetensors"),
                              path(f"{name}_batches.npy"))


failures = []


def train(name, size, mode, log, *extra):
    return tm.lazax_train(LAZAX, size, path(f"{name}_init.safetensors"),
                          path(f"{name}_batches.npy"), LR, WD, path(log), "--mode", mode, *extra)


weights, batches = make_inputs("tiny2", TINY2, seed=1)
ref = tm.train_losses(weights, batches, TINY2["layers"], TINY2["heads"], LR, WD, STEPS)
logs = {}
for mode in ["lazy", "assume_pure", "scan"]:
    log = train("tiny2", TINY2, mode, f"{mode}.jsonl", "--steps", str(STEPS))
    logs[mode] = log
    got = [r["loss"] for r in log]
    rel = [abs(a - b) / abs(b) for a, b in zip(got, ref)]
    ok = len(got) == STEPS and rel[0] <= 1e-4 and max(rel) <= 2e-3
    print(f"{'ok  ' if ok else 'FAIL'} {mode}: step 1 {got[0]:.6f} vs torch {ref[0]:.6f} "
          f"(rel {rel[0]:.1e}); step {STEPS} {got[-1]:.6f} vs {ref[-1]:.6f}; max rel {max(rel):.1e}")
    if not ok:
        failures.append(mode)
    # Trace time (reported, not asserted: timings belong to benchmarks): steps 3.. are warm.
    trace = sum(r["trace_ms"] for r in log[2:]) / max(1, len(log) - 2)
    print(f"     {mode}: mean trace_ms per warm step {trace:.3f}; compiles {log[-1]['compiles']}")

for mode in ["assume_pure", "scan"]:
    a, b = [r["loss"] for r in logs[mode]], [r["loss"] for r in logs["lazy"]]
    worst = max(abs(x - y) / abs(y) for x, y in zip(a, b))
    ok = worst <= 1e-5
    print(f"{'ok  ' if ok else 'FAIL'} {mode} vs lazy: max relative loss difference {worst:.1e}")
    if not ok:
        failures.append(mode + " vs lazy")

# Resume: 10 steps and a checkpoint, then the rest from it; the losses of steps 11..20 must be
# the uninterrupted run's, bit for bit, on the default (cpu) backend and on the reference one.
make_inputs("small", SMALL, seed=3)
for backend in ["cpu", "reference"]:
    b = ["--backend", backend]
    run = [r["loss"] for r in train("small", SMALL, "lazy", f"whole_{backend}.jsonl", "--steps",
                                    str(STEPS), *b)]
    ck = path(f"step10_{backend}.safetensors")
    train("small", SMALL, "lazy", f"first_{backend}.jsonl", "--steps", "10", "--save", ck, *b)
    rest = train("small", SMALL, "lazy", f"rest_{backend}.jsonl", "--steps", str(STEPS),
                 "--resume", ck, *b)
    resumed = [r["loss"] for r in rest]
    ok = [r["step"] for r in rest] == list(range(11, STEPS + 1)) and resumed == run[10:]
    print(f"{'ok  ' if ok else 'FAIL'} resume from step 10 ({backend}): {resumed[:2]}... vs "
          f"{run[10:12]}...")
    if not ok:
        failures.append("resume " + backend)

print("passed" if not failures else f"failed: {failures}")
sys.exit(1 if failures else 0)
