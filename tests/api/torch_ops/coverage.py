#!/usr/bin/python3
"""Fails when a public op of the Tensor API has no value test in torch_ops.

usage: coverage.py PATH/TO/torch_ops_driver PATH/TO/include/lazax/api
Every function and method declared in tensor.h, its op families' ops_*.h and random.h
(api_decls.py) must be called by a
row of the driver's op table (torch_ops_driver --list), and every row by at least one case of
cases.py / cases_more.py, unless ALLOWED below says why it has no value of its own to compare.
A row that names a declaration the headers no longer have is an error too.
"""
import json
import os
import subprocess
import sys

import numpy as np

from api_decls import declarations, normalize
from cases import all_cases

# Declarations without a value test here, and why.
COLLECTIVE = ("a collective: the identity in one process; tests/dist runs it on 2 ranks "
              "against the one-process computation")
ALLOWED = {
    "all_reduce(const Tensor&,ReduceKind,int64_t)": COLLECTIVE,
    "psum(const Tensor&,int64_t)": COLLECTIVE,
    "pmean(const Tensor&,int64_t)": COLLECTIVE,
    "pmax(const Tensor&,int64_t)": COLLECTIVE,
    "pmin(const Tensor&,int64_t)": COLLECTIVE,
    "all_gather(const Tensor&,int64_t,int64_t)": COLLECTIVE,
    "reduce_scatter(const Tensor&,int64_t,ReduceKind,int64_t)": COLLECTIVE,
    "psum_scatter(const Tensor&,int64_t,int64_t)": COLLECTIVE,
    "all_to_all(const Tensor&,int64_t,int64_t,int64_t)": COLLECTIVE,
    "broadcast_from(const Tensor&,int64_t,int64_t)": COLLECTIVE,
    "axis_index(int64_t)": COLLECTIVE,
    "Tensor::Tensor(std::shared_ptr<TensorImpl>)": "internal: wraps an implementation handle",
    "Tensor::impl() const": "internal: the implementation handle",
    "Tensor::impl_ptr() const": "internal: the implementation handle",
    "Tensor::defined() const": "no value: whether the handle is empty (tests/api, tests/autodiff)",
    "Tensor::dtype() const": "read by the driver for every result, compared exactly",
    "Tensor::shape() const": "read by the driver for every result, compared exactly",
    "Tensor::type_id() const": "no value: a cache key word (tests/pure)",
    "Tensor::type_str() const": "text for messages, no torch counterpart",
    "Generator::key() const": "the generator's internal state; tests/api/random_test.cc",
    "Generator::get_state() const": "the generator's state for checkpoints, no torch counterpart "
                                    "value; tests/optim/checkpoint_test.cc",
    "Generator::set_state(const Literal&)": "restores get_state(); tests/optim/checkpoint_test.cc",
    "Tensor::operator=(const Tensor&)": "handle assignment, no value of its own; tests/pure "
                                        "(ReassignedCaptureIsReadAfresh)",
    "Tensor::operator=(Tensor&&)": "handle assignment, no value of its own; tests/pure",
    "operator<<(std::ostream&,const Tensor&)": "text, no torch counterpart; tests/api/print_test.cc",
}


def main():
    driver, include = sys.argv[1], sys.argv[2]
    declared = []
    # tensor.h (the Tensor class) and the op families' headers it includes (ops_*.h)
    headers = ["tensor.h", "random.h"] + sorted(h for h in os.listdir(include) if h.startswith("ops_"))
    for header in headers:
        declared += declarations(os.path.join(include, header))
    listed = json.loads(subprocess.run([driver, "--list"], capture_output=True, text=True, check=True).stdout)
    covered = {normalize(sig): op for op, sigs in listed.items() for sig in sigs}
    used = {c.op for c in all_cases(np.random.default_rng(0))}
    problems = []
    for sig in declared:
        if sig in ALLOWED:
            continue
        if sig not in covered:
            problems.append(f"{sig}: no row of the driver's op table (tests/api/torch_ops/ops_table*.cc) calls "
                            "it; add one and a case in cases*.py, or say in ALLOWED why it has no value test")
        elif covered[sig] not in used:
            problems.append(f"{sig}: the driver op '{covered[sig]}' has no case in cases*.py")
    for sig, op in covered.items():
        if sig not in declared:
            problems.append(f"driver op '{op}' names '{sig}', which the API headers do not declare")
    for sig in ALLOWED:
        if sig not in declared:
            problems.append(f"ALLOWED names '{sig}', which the API headers do not declare")
    for op in listed:
        if op not in used:
            problems.append(f"driver op '{op}' has no case")
    for op in used - set(listed):
        problems.append(f"a case names the op '{op}', which the driver does not have")
    print("\n".join(problems))
    print(f"{len(declared)} declarations: {len(declared) - len(ALLOWED)} with a value test, {len(ALLOWED)} allowed "
          f"without; {len(listed)} driver ops; {len(problems)} problems")
    return 1 if problems or not declared else 0


if __name__ == "__main__":
    sys.exit(main())
