// The torch_ops driver: runs public lazax::Tensor ops named by a case list (JSON) on .npy inputs
// and writes their results, so that run.py can compare them with PyTorch. The op table
// (ops_table.cc, ops_table_more.cc) has one row per driver op: its id (what a case names), the
// public declarations it calls (normalized signatures, checked against the headers by
// coverage.py) and a function from the case's inputs and arguments to one tensor.
#pragma once
#include <cstdint>
#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "lazax/api/tensor.h"

namespace lazax::torch_ops {

// One case's inputs (already converted to the case's dtypes) and non-tensor arguments.
struct Call {
  std::vector<Tensor> in;
  const nlohmann::json& args;

  const Tensor& x(size_t i) const;
  int64_t i(const char* key) const;
  double d(const char* key) const;
  bool b(const char* key, bool otherwise) const;
  std::vector<int64_t> ints(const char* key) const;
  DType dtype(const char* key) const;
  std::optional<double> maybe(const char* key) const;  // absent or null: nullopt
};

struct OpRow {
  std::string_view id;
  std::vector<std::string_view> covers;  // signatures as api_decls.py writes them
  std::function<Tensor(Call&)> run;
};

// Values in i64 or bool tensors (from host values the driver computes: flags, sizes).
Tensor int_values(const std::vector<int64_t>& v);
Tensor bool_values(const std::vector<bool>& v);

void add_tensor_rows(std::vector<OpRow>& rows);    // ops_table.cc: methods, elementwise
void add_function_rows(std::vector<OpRow>& rows);  // ops_table_more.cc: the rest
void add_method_rows(std::vector<OpRow>& rows);    // ops_table_methods.cc: method forms, operators
void add_index_rows(std::vector<OpRow>& rows);     // ops_table_index.cc: indexing, var, tril, ...

}  // namespace lazax::torch_ops
