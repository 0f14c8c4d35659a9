# The PyTorch peer of `lazax bench vmap`: per-example gradients of the same MLP as a loop of
# backward passes, one per example. Prints one JSON object: loop_ms (median) and version.
import json
import sys
import time

import torch


def main():
    batch, n_in, hidden, n_out, reps = (int(a) for a in sys.argv[1:6])
    torch.manual_seed(0)
    w1 = torch.randn(n_in, hidden, requires_grad=True)
    b1 = torch.randn(hidden, requires_grad=True)
    w2 = torch.randn(hidden, n_out, requires_grad=True)
    xs, ys = torch.randn(batch, n_in), torch.randn(batch, n_out)

    def loop():
        grads = []
        for i in range(batch):
            d = torch.tanh(xs[i] @ w1 + b1) @ w2 - ys[i]
            (g,) = torch.autograd.grad((d * d).sum(), [w1])
            grads.append(g)
        return torch.stack(grads)

    loop()
    times = []
    for _ in range(reps):
        t0 = time.perf_counter()
        loop()
        times.append((time.perf_counter() - t0) * 1e3)
    times.sort()
    print(json.dumps({"loop_ms": times[len(times) // 2], "version": torch.__version__}))


if __name__ == "__main__":
    main()
