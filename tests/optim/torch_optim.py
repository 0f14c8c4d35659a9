#!/usr/bin/python3
"""lazax's optimizers, clip_grad_norm_ and learning-rate schedules against PyTorch's.

usage: torch_optim.py PATH/TO/optim_driver SCRATCH_DIR
Each case runs several steps of torch.optim.SGD (every combination of momentum, dampening,
nesterov, weight decay, maximize) or torch.optim.AdamW (defaults, amsgrad, other betas, weight
decay 0) on the same f32 parameters and gradients as lazax's optim_driver, with a learning rate
that changes every step, some with clip_grad_norm_ before the step and some with a parameter
that has no gradient on some steps (skipped: its state and step count stay). The parameters
after the last step must agree within 1e-6 relative (an absolute 1e-7 floor for values near
zero), the norms too. The warmup-cosine schedule must equal torch's SequentialLR(LinearLR,
CosineAnnealingLR) within 1e-12 relative, and a LambdaLR of the documented formula exactly.
"""
import itertools
import warnings
import json
import math
import os
import shutil
import subprocess
import sys

import numpy as np
import torch

DRIVER, SCRATCH = sys.argv[1], sys.argv[2]
# SequentialLR passes an epoch to step() itself, which torch 1.13 warns about.
warnings.filterwarnings("ignore", message="The epoch parameter")
RTOL, ATOL = 1e-6, 1e-7
SHAPES = [(4, 3), (7,), ()]
STEPS = 6


def save(path, a):
    np.save(path, a)
    return path


def make_case(rng, name, optimizer, options, clip=None, holes=False):
    params = [save(f"{SCRATCH}/{name}.p{i}.npy", np.asarray(rng.standard_normal(s), np.float32))
              for i, s in enumerate(SHAPES)]
    grads = []
    for s in range(STEPS):
        row = []
        for i, shape in enumerate(SHAPES):
            # With holes, parameter 2 has no gradient on steps 0 and 3: it starts late and skips.
            if holes and i == 2 and s in (0, 3):
                row.append(None)
            else:
                row.append(save(f"{SCRATCH}/{name}.g{s}.{i}.npy",
                                np.asarray(rng.standard_normal(shape) * (1 + s), np.float32)))
        grads.append(row)
    lrs = [0.1 / (1 + s) if optimizer == "sgd" else 0.01 * (1 + s % 3) for s in range(STEPS)]
    return {"name": name, "optimizer": optimizer, "options": options, "params": params,
            "grads": grads, "lrs": lrs, "clip": clip}


def run_torch(case):
    params = [torch.from_numpy(np.load(p)).requires_grad_() for p in case["params"]]
    o = dict(case["options"])
    if case["optimizer"] == "sgd":
        opt = torch.optim.SGD(params, lr=case["lrs"][0], **o)
    else:
        betas = (o.pop("beta1", 0.9), o.pop("beta2", 0.999))
        opt = torch.optim.AdamW(params, lr=case["lrs"][0], betas=betas, **o)
    norms = []
    for s, row in enumerate(case["grads"]):
        for p, g in zip(params, row):
            p.grad = None if g is None else torch.from_numpy(np.load(g))
        if case["clip"] is not None:
            with_grad = [p for p in params if p.grad is not None]
            norms.append(float(torch.nn.utils.clip_grad_norm_(with_grad, case["clip"])))
        for group in opt.param_groups:
            group["lr"] = case["lrs"][s]
        opt.step()
    return [p.detach().numpy() for p in params], np.array(norms, np.float32)


def close(got, want):
    err = np.abs(got.astype(np.float64) - want.astype(np.float64))
    ok = err <= RTOL * np.abs(want) + ATOL
    rel = err / np.maximum(np.abs(want), 1e-30)
    return bool(ok.all()), float(rel.max(initial=0))


def optimizer_cases(rng):
    cases = []
    for momentum, dampening, nesterov, wd, maximize in itertools.product(
            [0.0, 0.9], [0.0, 0.3], [False, True], [0.0, 0.05], [False, True]):
        if nesterov and (momentum == 0 or dampening != 0):
            continue  # torch and lazax both refuse it
        o = {"momentum": momentum, "dampening": dampening, "nesterov": nesterov,
             "weight_decay": wd, "maximize": maximize}
        name = f"sgd_m{momentum}_d{dampening}_n{int(nesterov)}_wd{wd}_max{int(maximize)}"
        cases.append(make_case(rng, name, "sgd", o))
    for name, o in [("adamw_default", {}), ("adamw_amsgrad", {"amsgrad": True}),
                    ("adamw_betas", {"beta1": 0.8, "beta2": 0.95, "eps": 1e-6}),
                    ("adamw_wd0", {"weight_decay": 0.0}),
                    ("adamw_wd_maximize", {"weight_decay": 0.1, "maximize": True})]:
        cases.append(make_case(rng, name, "adamw", o))
    cases.append(make_case(rng, "sgd_holes", "sgd", {"momentum": 0.9, "dampening": 0.1}, holes=True))
    cases.append(make_case(rng, "adamw_holes", "adamw", {"amsgrad": True}, holes=True))
    cases.append(make_case(rng, "adamw_clip", "adamw", {}, clip=1.0))
    cases.append(make_case(rng, "sgd_clip_loose", "sgd", {"momentum": 0.5}, clip=100.0))
    return cases


def schedule_cases():
    return [{"name": f"cos_w{w}_t{t}_min{m}", "schedule": "cosine", "peak": 3e-4, "warmup": w,
             "total": t, "min": m, "steps": t}
            for w, t, m in [(5, 30, 3e-5), (1, 10, 0.0), (10, 11, 1e-5), (3, 100, 0.0)]] + \
           [{"name": "cos_w0_t20", "schedule": "cosine", "peak": 1e-3, "warmup": 0, "total": 20,
             "min": 1e-4, "steps": 25},
            {"name": "constant", "schedule": "constant", "peak": 2e-3, "steps": 7}]


def torch_schedule(c):
    """torch's own schedulers for warmup > 0 (the lr of steps 0..total-1)."""
    p = torch.nn.Parameter(torch.zeros(1))
    opt = torch.optim.SGD([p], lr=c["peak"])
    w, t = c["warmup"], c["total"]
    warm = torch.optim.lr_scheduler.LinearLR(opt, start_factor=1 / w, end_factor=1.0,
                                             total_iters=w - 1)
    cos = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=t - w, eta_min=c["min"])
    sched = torch.optim.lr_scheduler.SequentialLR(opt, [warm, cos], milestones=[w])
    out = []
    for _ in range(t):
        out.append(opt.param_groups[0]["lr"])
        opt.step()
        sched.step()
    return np.array(out)


def lambda_schedule(c):
    """The documented formula through torch's LambdaLR (covers warmup 0 and steps past total)."""
    p = torch.nn.Parameter(torch.zeros(1))
    opt = torch.optim.SGD([p], lr=c["peak"])
    w, t, lo, peak = c.get("warmup", 0), c.get("total", 1), c.get("min", 0.0), c["peak"]

    def factor(s):
        if c["schedule"] == "constant":
            return 1.0
        if s < w:
            return (s + 1) / w
        x = min(1.0, (s - w) / max(1, t - w))
        return (lo + (peak - lo) * (1 + math.cos(math.pi * x)) / 2) / peak

    sched = torch.optim.lr_scheduler.LambdaLR(opt, factor)
    out = []
    for _ in range(c["steps"]):
        out.append(opt.param_groups[0]["lr"])
        opt.step()
        sched.step()
    return np.array(out)


def main():
    shutil.rmtree(SCRATCH, ignore_errors=True)
    os.makedirs(SCRATCH)
    rng = np.random.default_rng(2024)
    opt_cases, sched_cases = optimizer_cases(rng), schedule_cases()
    with open(f"{SCRATCH}/cases.json", "w") as f:
        json.dump({"cases": opt_cases + sched_cases}, f)
    r = subprocess.run([DRIVER, f"{SCRATCH}/cases.json", SCRATCH], capture_output=True, text=True)
    if r.returncode != 0:
        print("FAIL: the driver failed:", r.stderr)
        return 1
    failures, worst = [], 0.0
    for c in opt_cases:
        want, want_norms = run_torch(c)
        for i, w in enumerate(want):
            got = np.load(f"{SCRATCH}/{c['name']}.{i}.npy")
            ok, rel = close(got, w)
            worst = max(worst, rel if ok else 0.0)
            if not ok or got.shape != w.shape:
                failures.append(f"{c['name']}: parameter {i} differs (max relative error {rel:.3g})")
        if c["clip"] is not None:
            got = np.load(f"{SCRATCH}/{c['name']}.norms.npy")
            ok, rel = close(got, want_norms)
            if not ok:
                failures.append(f"{c['name']}: clip_grad_norm_ results {got} != torch {want_norms}")
    for c in sched_cases:
        got = np.load(f"{SCRATCH}/{c['name']}.lrs.npy")
        lam = lambda_schedule(c)
        if not np.allclose(got, lam, rtol=1e-15, atol=0):
            failures.append(f"{c['name']}: lazax {got} != LambdaLR of the formula {lam}")
        if c["schedule"] == "cosine" and c["warmup"] > 0:
            ref = torch_schedule(c)
            if not np.allclose(got[:len(ref)], ref, rtol=1e-12, atol=0):
                failures.append(f"{c['name']}: lazax {got} != torch SequentialLR {ref}")
    for f in failures:
        print("FAIL", f)
    print(f"{len(opt_cases)} optimizer cases ({STEPS} steps each), {len(sched_cases)} schedules: "
          f"{len(failures)} failures; largest relative error of agreeing parameters {worst:.3g}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
