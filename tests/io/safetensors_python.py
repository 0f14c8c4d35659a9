#!/usr/bin/python3
"""lazax's safetensors reader and writer against an independent Python implementation of the
format (struct + json + numpy; Debian has no python3-safetensors).

usage: safetensors_python.py PATH/TO/safetensors_tool SCRATCH_DIR
1. Python writes files (every dtype, empty and 0-d tensors, metadata, data stored in another order
   than the header lists it, header padding); `safetensors_tool copy` reads each with lazax and
   writes it back with lazax; Python reads lazax's file and checks names, order, metadata and
   every byte of data, and that lazax's header is the canonical one (compact JSON, __metadata__
   first, tensors in order, data laid out in order, padded with spaces to 8 bytes).
2. Python writes hostile files; lazax must refuse each with exit code 2 and a message
   "[safetensors] PATH: ..." that contains the expected words, never crash.
"""
import json
import os
import shutil
import struct
import subprocess
import sys

import numpy as np

TOOL, SCRATCH = sys.argv[1], sys.argv[2]

# Format dtype -> numpy dtype (BF16 as its raw 16 bits: numpy has no bfloat16).
NP = {"F32": np.float32, "F64": np.float64, "F16": np.float16, "BF16": np.uint16, "I32": np.int32,
      "I64": np.int64, "U8": np.uint8, "BOOL": np.bool_, "I8": np.int8, "U32": np.uint32}


def write(path, tensors, metadata=None, data_order=None, pad=None):
    """tensors: list of (name, format dtype, array). data_order: indices, the order of the data."""
    order = data_order if data_order is not None else list(range(len(tensors)))
    offsets, blobs, at = {}, [], 0
    for i in order:
        raw = np.ascontiguousarray(tensors[i][2]).astype(NP[tensors[i][1]]).tobytes()
        offsets[i] = (at, at + len(raw))
        blobs.append(raw)
        at += len(raw)
    header = {}
    if metadata is not None:
        header["__metadata__"] = metadata
    for i, (name, dt, arr) in enumerate(tensors):
        header[name] = {"dtype": dt, "shape": list(arr.shape), "data_offsets": list(offsets[i])}
    text = json.dumps(header).encode()
    text += b" " * (pad if pad is not None else (-len(text)) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)) + text + b"".join(blobs))


def read(path):
    """(header text, [(name, dtype, shape, raw bytes)], metadata) of a safetensors file."""
    with open(path, "rb") as f:
        data = f.read()
    (n,) = struct.unpack("<Q", data[:8])
    text = data[8:8 + n].decode()
    header = json.loads(text)
    body = data[8 + n:]
    tensors, covered = [], 0
    for name, info in header.items():
        if name == "__metadata__":
            continue
        b, e = info["data_offsets"]
        tensors.append((name, info["dtype"], info["shape"], body[b:e]))
    spans = sorted(tuple(i["data_offsets"]) for k, i in header.items() if k != "__metadata__")
    for b, e in spans:
        assert b == covered, f"{path}: a gap or overlap at {b}"
        covered = e
    assert covered == len(body), f"{path}: the tensors cover {covered} of {len(body)} bytes"
    return text, tensors, header.get("__metadata__")


def canonical_header(tensors, metadata):
    header, at = {}, 0
    if metadata:
        header["__metadata__"] = metadata
    for name, dt, arr in tensors:
        n = arr.size * np.dtype(NP[dt]).itemsize
        header[name] = {"dtype": dt, "shape": list(arr.shape), "data_offsets": [at, at + n]}
        at += n
    text = json.dumps(header, separators=(",", ":"), ensure_ascii=False)
    return text + " " * ((-len(text.encode())) % 8)


def sample(rng, dt, shape):
    if dt == "BOOL":
        return rng.random(shape) < 0.5
    if dt == "U8":
        return rng.integers(0, 256, shape).astype(np.uint8)
    if dt in ("I8", "I32", "I64", "U32"):
        info = np.iinfo(NP[dt])
        return rng.integers(info.min, info.max, shape, dtype=NP[dt], endpoint=True)
    if dt == "BF16":
        return (rng.standard_normal(shape).astype(np.float32).view(np.uint32) >> 16).astype(np.uint16)
    return (rng.standard_normal(shape) * 100).astype(NP[dt])


def run(src, dst):
    return subprocess.run([TOOL, "copy", src, dst], capture_output=True, text=True)


def main():
    shutil.rmtree(SCRATCH, ignore_errors=True)
    os.makedirs(SCRATCH)
    rng = np.random.default_rng(17)
    failures = []

    # 1. Round trips through lazax.
    tensors = []
    for dt in NP:
        for shape in [(), (5,), (3, 0), (2, 3, 4)]:
            tensors.append((f"layers.{len(tensors)}.{dt.lower()}", dt, sample(rng, dt, shape)))
    tensors.append(("\u00fcnicode name", "F32", sample(rng, "F32", (2,))))
    rng.shuffle(tensors)
    cases = {
        "plain": dict(metadata=None),
        "metadata": dict(metadata={"step": "10", "data_position": "81920", "note": "\u00e9t\u00e9"}),
        "reordered_data": dict(metadata={"b": "1", "a": "2"},
                               data_order=list(reversed(range(len(tensors))))),
        "wide_padding": dict(metadata={}, pad=61),
    }
    for name, kw in cases.items():
        src, dst = os.path.join(SCRATCH, name + ".in"), os.path.join(SCRATCH, name + ".out")
        write(src, tensors, **kw)
        r = run(src, dst)
        if r.returncode != 0:
            failures.append(f"{name}: lazax failed to copy a Python-written file: {r.stderr}")
            continue
        text, got, meta = read(dst)
        want_meta = kw["metadata"] or None
        if (meta or None) != want_meta or list((meta or {}).keys()) != list((want_meta or {}).keys()):
            failures.append(f"{name}: metadata {meta} != {want_meta}")
        if [g[0] for g in got] != [t[0] for t in tensors]:
            failures.append(f"{name}: the names or their order changed")
        for (n, dt, arr), (gn, gdt, gshape, raw) in zip(tensors, got):
            want = np.ascontiguousarray(arr).astype(NP[dt]).tobytes()
            if gdt != dt or list(gshape) != list(arr.shape) or raw != want:
                failures.append(f"{name}: tensor {n}: {gdt}{gshape} differs from {dt}{list(arr.shape)}"
                                " or its bytes differ")
        if text != canonical_header(tensors, want_meta):
            failures.append(f"{name}: lazax's header is not the canonical one:\n{text[:300]}")

    # 2. Hostile files: lazax refuses each with a clear message.
    good = os.path.join(SCRATCH, "good")
    write(good, [("a", "F32", np.ones(4, np.float32))])
    good_bytes = open(good, "rb").read()
    (n,) = struct.unpack("<Q", good_bytes[:8])

    def raw_file(header_text, body=b"", stated=None):
        h = header_text.encode() if isinstance(header_text, str) else header_text
        return struct.pack("<Q", len(h) if stated is None else stated) + h + body

    def entry(dt="F32", shape=(1,), offs=(0, 4)):
        return {"dtype": dt, "shape": list(shape), "data_offsets": list(offs)}

    hostile = {
        "truncated_length": (good_bytes[:5], "truncated: 5 bytes"),
        "truncated_header": (good_bytes[:8 + n // 2], "truncated: the header length says"),
        "truncated_data": (good_bytes[:-3], "go past the end of the data"),
        "huge_header_length": (struct.pack("<Q", 2**63) + good_bytes[8:], "over the 100000000-byte limit"),
        "header_beyond_file": (raw_file(json.dumps({"a": entry()}), b"\0" * 4, stated=10**6),
                               "the header length says 1000000 bytes"),
        "bad_json": (raw_file('{"a": {"dtype": "F32",', b""), "bad header JSON"),
        "not_an_object": (raw_file("[]"), "must be a JSON object"),
        "unknown_dtype": (raw_file(json.dumps({"a": entry("F7")}), b"\0" * 4), "unknown dtype 'F7'"),
        "overlap": (raw_file(json.dumps({"a": entry(offs=(0, 4)), "b": entry("U8", (4,), (2, 6))}),
                             b"\0" * 6), "overlap"),
        "out_of_range": (raw_file(json.dumps({"a": entry(offs=(8, 12))}), b"\0" * 4),
                         "go past the end of the data"),
        "gap": (raw_file(json.dumps({"a": entry(offs=(4, 8))}), b"\0" * 8), "belong to no tensor"),
        "trailing": (raw_file(json.dumps({"a": entry()}), b"\0" * 9), "the tensors cover 4 bytes"),
        "shape_vs_bytes": (raw_file(json.dumps({"a": entry(shape=(3,))}), b"\0" * 4), "needs 12 bytes"),
        "negative_dim": (raw_file(json.dumps({"a": entry(shape=(-1,))}), b"\0" * 4), "is negative"),
        "duplicate_key": (raw_file('{"a":' + json.dumps(entry()) + ',"a":' + json.dumps(entry()) + "}",
                                   b"\0" * 4), "appears twice"),
        "metadata_not_strings": (raw_file(json.dumps({"__metadata__": {"step": 3}})), "must be a string"),
        "deep_nesting": (raw_file("{" + "[" * 5000), "nested more than"),
        "empty": (b"", "truncated: 0 bytes"),
    }
    for name, (data, words) in hostile.items():
        path = os.path.join(SCRATCH, name + ".safetensors")
        with open(path, "wb") as f:
            f.write(data)
        r = run(path, os.path.join(SCRATCH, name + ".never"))
        prefix = f"[safetensors] {path}: "
        if r.returncode != 2 or not r.stderr.startswith(prefix) or words not in r.stderr:
            failures.append(f"hostile {name}: exit {r.returncode}, stderr {r.stderr.strip()!r}; "
                            f"wanted exit 2 and {prefix}...{words}...")
        if os.path.exists(os.path.join(SCRATCH, name + ".never")):
            failures.append(f"hostile {name}: an output file was written")
    r = run("/dev/zero", os.path.join(SCRATCH, "zero.never"))
    if r.returncode != 2 or "not a regular file" not in r.stderr:
        failures.append(f"/dev/zero: exit {r.returncode}, {r.stderr.strip()!r}")

    for f in failures:
        print("FAIL", f)
    print(f"{len(cases)} round trips, {len(hostile) + 1} hostile files: {len(failures)} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
