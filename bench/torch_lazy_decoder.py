"""Peer figure for `lazax bench assume-pure`: PyTorch's own lazy tensor tracing (torch._lazy, the
TorchScript backend of Debian's python3-torch) of one training step of the same decoder as
lazax's nn::Llama (include/lazax/nn/llama.h) at the bench's sizes: token embedding, N layers of
[RMSNorm -> causal multi-head attention (4 heads, rotary embeddings) -> residual -> RMSNorm ->
SwiGLU MLP (inner 256) -> residual], final RMSNorm, output projection, mean cross entropy;
dim 128, vocab 256, batch 2, sequence 8. Weights are [out, in] as nn::Linear's (F.linear); their
values (scaled normals) differ from nn::Llama's, which does not matter to the host cost. The
rotary cos/sin tables are made once, as the reference Llama code's freqs_cis.

What is timed, per step (after --warmup untimed steps, which compile):
  host_ms_per_step       forward + loss.backward() on lazy tensors: tracing only, up to (not
                         including) mark_step. The TS backend executes at mark_step, so the
                         mark_step cost (graph hash, cache lookup and execution) is reported apart:
  mark_step_ms_per_step  mark_step + wait_device_ops after the backward (includes execution)
  optimizer_ms_per_step  tracing the SGD update (p -= lr * grad under no_grad, grads set to None),
                         before its own mark_step
Clock: process CPU time (time.process_time), which also covers work PyTorch may do on other
threads (its autograd engine can run a non-CPU device's backward on a device thread); wall time
is reported too. Medians over the timed steps. Prints one JSON object.
Usage: python3 torch_lazy_decoder.py [--layers N] [--steps N] [--warmup N] [--block-repeats N]
                                   [--serve]
With --serve the timed steps run on request, so that a caller can take turns with its own loops
(`lazax bench assume-pure` does, so that a change in the machine's load falls on both alike):
after the warm-up it prints {"ready": true}; then each input line "run N" runs N timed steps and
answers {"ran": N}; "done" (or the end of input) prints the result object and exits.
"""
import argparse
import json
import math
import statistics
import sys
import time


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--layers", type=int, default=100)
    p.add_argument("--steps", type=int, default=10, help="timed steps")
    p.add_argument("--warmup", type=int, default=2, help="untimed steps first")
    p.add_argument("--block-repeats", type=int, default=1, help="apply each layer's block N times")
    p.add_argument("--serve", action="store_true", help="run timed steps on request (see above)")
    args = p.parse_args()
    if args.layers <= 0 or args.steps <= 0 or args.warmup < 0 or args.block_repeats <= 0:
        p.error("--layers, --steps and --block-repeats must be > 0, --warmup >= 0")

    import torch
    import torch._lazy
    import torch._lazy.metrics as M
    import torch._lazy.ts_backend

    torch._lazy.ts_backend.init()
    torch.set_num_threads(1)
    dev = torch.device("lazy")
    vocab, hidden, heads, mlp, seq, batch = 256, 128, 4, 256, 8, 2
    hd = hidden // heads
    torch.manual_seed(0)

    def param(*shape, scale):
        return (torch.randn(*shape) * scale).to(dev).requires_grad_()

    s = 1.0 / math.sqrt(hidden)
    embed = param(vocab, hidden, scale=0.5)
    layers = []
    for _ in range(args.layers):  # nn::Linear's weights are [out, in]
        layers.append(dict(
            attn_norm=torch.ones(hidden).to(dev).requires_grad_(),
            wq=param(hidden, hidden, scale=s), wk=param(hidden, hidden, scale=s),
            wv=param(hidden, hidden, scale=s), wo=param(hidden, hidden, scale=s),
            mlp_norm=torch.ones(hidden).to(dev).requires_grad_(),
            w1=param(mlp, hidden, scale=s), w3=param(mlp, hidden, scale=s),
            w2=param(hidden, mlp, scale=1.0 / math.sqrt(mlp))))
    final_norm = torch.ones(hidden).to(dev).requires_grad_()
    head = param(vocab, hidden, scale=s)
    # Rotary embeddings, rotate-half convention (nn::apply_rotary), theta 10000.
    half = hd // 2
    inv = 1.0 / (10000.0 ** (torch.arange(half, dtype=torch.float32) * 2.0 / hd))
    freqs = torch.arange(seq, dtype=torch.float32)[:, None] * inv[None, :]
    angles = torch.cat([freqs, freqs], -1)
    rope_cos, rope_sin = angles.cos().to(dev), angles.sin().to(dev)
    params = [embed, final_norm, head] + [t for l in layers for t in l.values()]
    torch._lazy.mark_step()
    torch._lazy.wait_device_ops()

    def rms_norm(x, w, eps=1e-5):
        return x * torch.rsqrt((x * x).mean(-1, keepdim=True) + eps) * w

    def rotary(x):
        x1, x2 = x[..., :half], x[..., half:]
        return x * rope_cos + torch.cat([-x2, x1], -1) * rope_sin

    linear = torch.nn.functional.linear

    def decoder_layer(lp, h):
        b, t = h.shape[0], h.shape[1]
        for _ in range(args.block_repeats):
            x = rms_norm(h, lp["attn_norm"])

            def split(w):  # [b, t, d] -> [b, nh, t, hd]
                return linear(x, w).reshape(b, t, heads, hd).transpose(1, 2)

            q, k, v = rotary(split(lp["wq"])), rotary(split(lp["wk"])), split(lp["wv"])
            scores = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(hd))
            # lazax: where(tril_mask, scores, -1e30). Here: masked_fill above the diagonal, because
            # torch.where and logical_not fall back to eager CPU kernels in this torch._lazy,
            # which executes the pending graph in the middle of the trace.
            above = torch.ones(t, t, dtype=torch.bool, device=dev).triu(1)
            scores = scores.masked_fill(above, -1e30)
            attn = torch.softmax(scores, -1) @ v
            h = h + linear(attn.transpose(1, 2).reshape(b, t, hidden), lp["wo"])
            y = rms_norm(h, lp["mlp_norm"])
            h = h + linear(torch.nn.functional.silu(linear(y, lp["w1"])) * linear(y, lp["w3"]),
                           lp["w2"])
        return h

    def decoder_loss(tokens, targets):
        h = torch.nn.functional.embedding(tokens, embed)
        for lp in layers:
            h = decoder_layer(lp, h)
        logits = linear(rms_norm(h, final_norm), head)
        n = tokens.numel()
        return torch.nn.functional.cross_entropy(logits.reshape(n, vocab), targets.reshape(n))

    def batch_for(step):
        i = torch.arange(batch * seq)
        tok = ((step * 7 + i * 13) % vocab).reshape(batch, seq)
        tgt = ((step * 7 + i * 13 + 1) % vocab).reshape(batch, seq)
        return tok.to(dev), tgt.to(dev)

    clocks = (time.process_time_ns, time.perf_counter_ns)
    host, mark, opt, host_wall = [], [], [], []
    done = [0]  # steps run so far (each step's batch differs)

    def step(timed):
        tokens, targets = batch_for(done[0])
        done[0] += 1
        t0 = [c() for c in clocks]
        loss = decoder_loss(tokens, targets)
        loss.backward()
        t1 = [c() for c in clocks]
        torch._lazy.mark_step()
        torch._lazy.wait_device_ops()
        t2 = [c() for c in clocks]
        with torch.no_grad():
            for q in params:
                q -= 1e-3 * q.grad
                q.grad = None
        t3 = [c() for c in clocks]
        torch._lazy.mark_step()
        torch._lazy.wait_device_ops()
        del loss
        if not timed:
            return
        host.append((t1[0] - t0[0]) / 1e6)
        host_wall.append((t1[1] - t0[1]) / 1e6)
        mark.append((t2[0] - t1[0]) / 1e6)
        opt.append((t3[0] - t2[0]) / 1e6)

    for _ in range(args.warmup):
        step(False)
    if not args.serve:
        for _ in range(args.steps):
            step(True)
    else:
        print(json.dumps({"ready": True}), flush=True)
        for line in sys.stdin:
            words = line.split()
            if words[:1] == ["done"]:
                break
            if len(words) != 2 or words[0] != "run" or not words[1].isdigit():
                print("torch_lazy_decoder.py: expected 'run N' or 'done', got " + repr(line),
                      flush=True)
                return 2
            for _ in range(int(words[1])):
                step(True)
            print(json.dumps({"ran": int(words[1])}), flush=True)
        if not host:
            print("torch_lazy_decoder.py: no timed step was requested", flush=True)
            return 2

    # Ops that fell back to eager CPU kernels (they execute mid-trace): want 0.
    fallbacks = sum(M.counter_value(n) for n in M.counter_names() if n.startswith("aten::"))
    print(json.dumps({
        "host_ms_per_step": round(statistics.median(host), 3),
        "mark_step_ms_per_step": round(statistics.median(mark), 3),
        "optimizer_ms_per_step": round(statistics.median(opt), 3),
        "host_wall_ms_per_step": round(statistics.median(host_wall), 3),
        "host_ms_mean": round(statistics.mean(host), 3),
        "layers": args.layers,
        "block_repeats": args.block_repeats,
        "steps": len(host),
        "warmup": args.warmup,
        "eager_fallbacks": fallbacks,
        "clock": "process_cpu",
        "served": args.serve,
        "torch_version": torch.__version__,
    }))
    return 0


if __name__ == "__main__":
    sys.exit(main())
