// The per-primitive cases of the vmap tests: for each primitive, a function that applies it and
// the inputs to batch (op_cases.cc). The meta-test fails while a primitive has none.
#pragma once
#include <string>
#include <vector>

#include "vmap_test_util.h"

namespace lazax::vmap_test {

struct OpCase {
  std::vector<std::string> ops;  // the primitives it covers (op table names)
  FlatFn fn;
  std::vector<Input> inputs;
  double tol = 1e-5;
};

std::vector<OpCase> op_cases();

}  // namespace lazax::vmap_test
