#!/usr/bin/python3
"""PyTorch's side of `lazax bench dist`: the model of bench/torch_train.py trained with
DistributedDataParallel over the gloo backend by N processes of 1 thread each (spawned here),
each on its 1/N of every batch, AdamW, from the same weights and batches as lazax. Prints one
JSON object (rank 0's): ms_per_step (mean of the steps after the warm-up), peak_rss_mb (rank
0's VmHWM), last_loss (rank 0's local loss).

usage: torch_ddp.py INIT.safetensors BATCHES.npy --layers L --heads H --ranks N
                    --warmup W --steps S --lr LR
"""
import argparse
import json
import os
import socket
import sys
import time

import numpy as np
import torch
import torch.distributed as dist
import torch.multiprocessing as mp

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import torch_train as tt  # noqa: E402


def worker(rank, a, port, out):
    os.environ["MASTER_ADDR"], os.environ["MASTER_PORT"] = "127.0.0.1", str(port)
    torch.set_num_threads(1)
    dist.init_process_group("gloo", rank=rank, world_size=a.ranks)
    model = tt.Model(tt.read_safetensors(a.init), a.layers, a.heads)
    ddp = torch.nn.parallel.DistributedDataParallel(model)
    batches = torch.tensor(np.load(a.batches), dtype=torch.long)
    part = batches.shape[1] // a.ranks
    opt = torch.optim.AdamW(ddp.parameters(), lr=a.lr, weight_decay=0.01)
    times, loss = [], None
    for s in range(a.warmup + a.steps):
        t0 = time.perf_counter()
        opt.zero_grad()
        loss = ddp(batches[s, rank * part:(rank + 1) * part])
        loss.backward()
        opt.step()
        loss = loss.item()
        times.append((time.perf_counter() - t0) * 1000)
    dist.barrier()
    if rank == 0:
        steady = times[a.warmup:]
        out.put({"ms_per_step": sum(steady) / len(steady), "peak_rss_mb": tt.peak_rss_mb(),
                 "ranks": a.ranks, "threads": torch.get_num_threads(), "last_loss": loss})
    dist.destroy_process_group()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("init")
    ap.add_argument("batches")
    for k in ("layers", "heads", "ranks", "warmup", "steps"):
        ap.add_argument("--" + k, type=int, required=True)
    ap.add_argument("--lr", type=float, default=1e-3)
    a = ap.parse_args()
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    ctx = mp.get_context("spawn")
    out = ctx.Queue()
    procs = [ctx.Process(target=worker, args=(r, a, port, out)) for r in range(a.ranks)]
    for p in procs:
        p.start()
    result = out.get(timeout=600)
    for p in procs:
        p.join()
    if any(p.exitcode != 0 for p in procs):
        raise SystemExit(f"a rank exited {[p.exitcode for p in procs]}")
    print(json.dumps(result))


if __name__ == "__main__":
    main()
