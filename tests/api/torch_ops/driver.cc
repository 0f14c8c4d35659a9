// usage: torch_ops_driver CASES.json OUT_DIR
//        torch_ops_driver --list
// Runs every case of CASES.json ({"cases": [{"name", "op", "inputs": [{"path", "dtype"?}],
// "args": {...}, "file": STEM, "grad": bool?, "cotangent": {"path", "dtype"?}?}]}) and writes
// OUT_DIR/STEM.npy (bf16 results as f32: NumPy has no bfloat16), OUT_DIR/STEM.grad<i>.npy with
// `grad` (the
// gradient of the result, backward() with the cotangent, for each floating input) and
// OUT_DIR/results.json: per case {"dtype", "shape", "grads": [dtype or null]} or {"error"}.
// --list prints the op table as JSON {id: [signatures]} for coverage.py.
#include "driver.h"

#include <cstdio>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>

#include "lazax/core/error.h"
#include "lazax/io/npy.h"

namespace lazax::torch_ops {

const Tensor& Call::x(size_t i) const {
  if (i >= in.size())
    throw ValueError("[driver] the op needs input " + std::to_string(i) + ", the case has " +
                     std::to_string(in.size()));
  return in[i];
}
int64_t Call::i(const char* key) const { return args.at(key).get<int64_t>(); }
// NaN and infinities come as strings ("nan", "-inf"): JSON has no literals for them.
double Call::d(const char* key) const {
  const nlohmann::json& v = args.at(key);
  return v.is_string() ? std::strtod(v.get<std::string>().c_str(), nullptr) : v.get<double>();
}
bool Call::b(const char* key, bool otherwise) const {
  return args.contains(key) ? args.at(key).get<bool>() : otherwise;
}
std::vector<int64_t> Call::ints(const char* key) const {
  return args.at(key).get<std::vector<int64_t>>();
}
DType Call::dtype(const char* key) const {
  std::string name = args.at(key).get<std::string>();
  std::optional<DType> t = dtype_from_name(name);
  if (!t) throw ValueError("[driver] unknown dtype '" + name + "'");
  return *t;
}
std::optional<double> Call::maybe(const char* key) const {
  if (!args.contains(key) || args.at(key).is_null()) return std::nullopt;
  return d(key);
}

Tensor int_values(const std::vector<int64_t>& v) {
  return from_vector<int64_t>(v, {static_cast<int64_t>(v.size())});
}
Tensor bool_values(const std::vector<bool>& v) {
  std::vector<uint8_t> bytes(v.begin(), v.end());
  return from_vector<uint8_t>(bytes, {static_cast<int64_t>(v.size())}).to(DType::boolean);
}

namespace {

namespace fs = std::filesystem;
using nlohmann::json;

const std::vector<OpRow>& table() {
  static const std::vector<OpRow> rows = [] {
    std::vector<OpRow> r;
    add_tensor_rows(r);
    add_function_rows(r);
    add_method_rows(r);
    add_index_rows(r);
    return r;
  }();
  return rows;
}

// A data tensor of the input's dtype: .npy files hold no bf16, so those come as f32 values
// (exactly representable in bf16) and are converted here.
Tensor read_input(const json& spec) {
  Tensor t(read_npy(spec.at("path").get<std::string>()));
  if (!spec.contains("dtype")) return t;
  std::optional<DType> want = dtype_from_name(spec.at("dtype").get<std::string>());
  if (!want) throw ValueError("[driver] unknown input dtype " + spec.at("dtype").dump());
  return t.dtype() == *want ? t : Tensor(t.to(*want).literal());
}

// encode_npy and a plain write, not write_npy: its fsync per file would take most of the run.
void write(const fs::path& path, const Tensor& t) {
  std::vector<uint8_t> bytes =
      encode_npy((t.dtype() == DType::bf16 ? t.to(DType::f32) : t).literal());
  std::ofstream f(path, std::ios::binary);
  f.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  if (!f) throw IOError("[driver] cannot write " + path.string());
}

json run_case(const json& c, const std::map<std::string_view, const OpRow*>& by_id,
              const fs::path& out_dir) {
  const std::string stem = c.at("file").get<std::string>();
  const std::string op = c.at("op").get<std::string>();
  auto row = by_id.find(op);
  if (row == by_id.end()) throw ValueError("[driver] no op '" + op + "' in the table");
  static const json kNoArgs = json::object();
  Call call{{}, c.contains("args") ? c.at("args") : kNoArgs};
  for (const json& spec : c.at("inputs")) call.in.push_back(read_input(spec));
  const bool grad = c.value("grad", false);
  if (grad)
    for (Tensor& t : call.in)
      if (is_floating(t.dtype())) t.requires_grad_();
  Tensor out = row->second->run(call);
  json result = {{"dtype", std::string(dtype_name(out.dtype()))}, {"shape", out.sizes()}};
  if (grad) {
    if (out.requires_grad()) out.backward(read_input(c.at("cotangent")));
    json grads = json::array();
    for (size_t i = 0; i < call.in.size(); ++i) {
      Tensor g = call.in[i].grad();
      if (!g.defined()) {
        grads.push_back(nullptr);
        continue;
      }
      grads.push_back(std::string(dtype_name(g.dtype())));
      write(out_dir / (stem + ".grad" + std::to_string(i) + ".npy"), g);
    }
    result["grads"] = grads;
  }
  write(out_dir / (stem + ".npy"), out);
  return result;
}

int main_impl(int argc, char** argv) {
  if (argc == 2 && std::string(argv[1]) == "--list") {
    json list = json::object();
    for (const OpRow& r : table()) {
      if (list.contains(r.id)) throw ValueError("[driver] op id '" + std::string(r.id) + "' twice");
      list[std::string(r.id)] = r.covers;
    }
    std::cout << list.dump(1) << "\n";
    return 0;
  }
  if (argc != 3) {
    std::fputs("usage: torch_ops_driver CASES.json OUT_DIR | torch_ops_driver --list\n", stderr);
    return 2;
  }
  std::map<std::string_view, const OpRow*> by_id;
  for (const OpRow& r : table()) by_id[r.id] = &r;
  std::ifstream in(argv[1]);
  if (!in) throw IOError(std::string("[driver] cannot open ") + argv[1]);
  const json cases = json::parse(in);
  const fs::path out_dir = argv[2];
  fs::create_directories(out_dir);
  json results = json::object();
  for (const json& c : cases.at("cases")) {
    const std::string name = c.at("name").get<std::string>();
    try {
      results[name] = run_case(c, by_id, out_dir);
    } catch (const std::exception& e) {
      results[name] = {{"error", e.what()}};
    }
  }
  std::ofstream(out_dir / "results.json") << results.dump(1) << "\n";
  return 0;
}

}  // namespace
}  // namespace lazax::torch_ops

int main(int argc, char** argv) {
  try {
    return lazax::torch_ops::main_impl(argc, argv);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "torch_ops_driver: %s\n", e.what());
    return 1;
  }
}
