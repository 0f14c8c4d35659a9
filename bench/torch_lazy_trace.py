"""Peer figure for `lazax bench trace`: PyTorch's own lazy tensor tracing (torch._lazy, the
TorchScript backend of Debian's python3-torch) per op: c = a + b chains on 16-float lazy tensors.

Only the tracing is timed: each chain is materialized (mark_step) outside the timed region.
Chains are short (100 ops by default) because torch._lazy's cost per op grows with the length of
the pending graph; short chains give its best case. Prints one JSON object:
  {"ns_per_op": ..., "chain": ..., "ops": ..., "reps": ..., "clock": "thread_cpu", ...}
Usage: python3 torch_lazy_trace.py [--ops N] [--reps N] [--chain N]
"""
import argparse
import json
import statistics
import sys
import time


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--ops", type=int, default=10000, help="ops traced per repetition")
    p.add_argument("--reps", type=int, default=9)
    p.add_argument("--chain", type=int, default=100, help="ops per chain between mark_steps")
    args = p.parse_args()
    if args.ops <= 0 or args.reps <= 0 or args.chain <= 0:
        p.error("--ops, --reps and --chain must be > 0")

    import torch
    import torch._lazy
    import torch._lazy.ts_backend

    torch._lazy.ts_backend.init()
    torch.set_num_threads(1)
    dev = torch.device("lazy")
    a = torch.ones(16, device=dev)
    b = torch.ones(16, device=dev)
    torch._lazy.mark_step()
    torch._lazy.wait_device_ops()

    chains = max(1, args.ops // args.chain)

    def rep():
        """Thread CPU ns spent tracing `chains` chains of `args.chain` adds."""
        spent = 0
        for _ in range(chains):
            x = a
            t0 = time.thread_time_ns()
            for _ in range(args.chain):
                x = x + b
            spent += time.thread_time_ns() - t0
            torch._lazy.mark_step()
            torch._lazy.wait_device_ops()
            del x
        return spent

    rep()  # warm up: compiles the chain's graph once
    per_op = [rep() / (chains * args.chain) for _ in range(args.reps)]
    print(json.dumps({
        "ns_per_op": round(statistics.median(per_op), 1),
        "chain": args.chain,
        "ops": chains * args.chain,
        "reps": args.reps,
        "clock": "thread_cpu",
        "torch_version": torch.__version__,
    }))
    return 0


if __name__ == "__main__":
    sys.exit(main())
