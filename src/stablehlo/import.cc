// The importer: one row per StableHLO op (kOps below) maps an OpSyntax onto lazax primitives
// with the Builder, whose shape rules check each node; the declared result types must match.
#include <algorithm>
#include <cctype>
#include <functional>
#include <unordered_map>
#include <unordered_set>

#include "ast.h"
#include "import_ops.h"
#include "lazax/ir/builder.h"
#include "lazax/stablehlo/stablehlo.h"

namespace lazax::stablehlo {
namespace {

struct Ctx;
using Lower = std::function<std::vector<ValueRef>(Ctx&, const OpSyntax&, std::vector<ValueRef>&)>;

struct Importer;
struct Ctx {
  Builder b;
  Importer* imp = nullptr;
};

const AttrValue& attr(const OpSyntax& o, const std::string& k) {
  auto it = o.attrs.find(k);
  if (it == o.attrs.end()) fail(o.pos, o.name + " needs the attribute '" + k + "'");
  return it->second;
}
IntList ints(const std::vector<int64_t>& v) { return IntList(v.begin(), v.end()); }

Lower unary(OpCode op) {
  return [op](Ctx& c, const OpSyntax&, std::vector<ValueRef>& in) {
    return std::vector<ValueRef>{c.b.add(op, in)};
  };
}

std::optional<CompareDir> direction(const std::string& w) {
  for (const char* d : {"EQ", "NE", "LT", "LE", "GT", "GE"}) {
    if (w.find(d) != std::string::npos) {
      std::string s = d;
      if (s == "EQ") return CompareDir::eq;
      if (s == "NE") return CompareDir::ne;
      if (s == "LT") return CompareDir::lt;
      if (s == "LE") return CompareDir::le;
      if (s == "GT") return CompareDir::gt;
      return CompareDir::ge;
    }
  }
  return std::nullopt;
}

std::vector<ValueRef> reduce(Ctx& c, const OpSyntax& o, std::vector<ValueRef>& in) {
  if (in.size() != 2) fail(o.pos, "reduce of several operands at once is not supported");
  const std::string& body = attr(o, "applies").word;
  OpCode r, combine;
  if (body == "stablehlo.add")
    r = OpCode::reduce_sum, combine = OpCode::add;
  else if (body == "stablehlo.maximum")
    r = OpCode::reduce_max, combine = OpCode::max;
  else if (body == "stablehlo.minimum")
    r = OpCode::reduce_min, combine = OpCode::min;
  else if (body == "stablehlo.multiply")
    r = OpCode::reduce_prod, combine = OpCode::mul;
  else if (body == "stablehlo.and")
    r = OpCode::reduce_and, combine = OpCode::and_;
  else if (body == "stablehlo.or")
    r = OpCode::reduce_or, combine = OpCode::or_;
  else
    fail(o.pos,
         "reduce body '" + body + "' is not one of add, maximum, minimum, multiply, and, or");
  ValueRef red = c.b.add(r, {in[0]}, ReduceAttrs{ints(attr(o, "dimensions").ints)});
  // The init value is combined once: exact for the identities JAX passes (0, -inf, 1, ...).
  const TensorType& t = c.b.type(red);
  ValueRef init = in[1];
  if (!t.shape.dims().empty())
    init = c.b.add(OpCode::broadcast_in_dim, {init}, BroadcastInDimAttrs{t.shape, {}});
  return {c.b.add(combine, {red, init})};
}

// The integers after `key = ` in a #stablehlo.dot<...>/gather<...>/scatter<...> attribute: a
// list `[1, 2]` or one integer (index_vector_dim = 1). False when the key is absent.
bool dims_in(const AttrValue& v, const std::string& key, IntList& out) {
  const std::string& w = v.word;
  auto malformed = [&] {
    std::string msg = "malformed " + key;
    msg += " in ";
    msg += w;
    fail(v.pos, msg);
  };
  size_t k = 0;
  while ((k = w.find(key, k)) != std::string::npos) {  // the whole key, not a key's tail
    bool starts =
        k == 0 || (std::isalnum(static_cast<unsigned char>(w[k - 1])) == 0 && w[k - 1] != '_');
    size_t after = w.find_first_not_of(' ', k + key.size());
    if (starts && after != std::string::npos && w[after] == '=') break;
    k += key.size();
  }
  if (k == std::string::npos) return false;
  size_t at = w.find_first_not_of(' ', w.find('=', k) + 1);
  bool list = at != std::string::npos && w[at] == '[';
  size_t end = list ? w.find(']', at) : w.find_first_of(",>", at);
  if (at == std::string::npos || end == std::string::npos) malformed();
  std::string body = w.substr(list ? at + 1 : at, end - (list ? at + 1 : at));
  size_t i = 0;
  while (i < body.size()) {
    while (i < body.size() && (body[i] == ',' || body[i] == ' ')) ++i;
    if (i == body.size()) break;
    size_t used = 0;
    try {
      out.push_back(std::stoll(body.substr(i), &used));
    } catch (const std::exception&) {
      malformed();
    }
    i += used;
  }
  return true;
}

std::vector<ValueRef> dot_general(Ctx&, const OpSyntax&, std::vector<ValueRef>&);
std::vector<ValueRef> gather(Ctx&, const OpSyntax&, std::vector<ValueRef>&);

const std::unordered_map<std::string, Lower>& table() {
  static const std::unordered_map<std::string, Lower> t = [] {
    std::unordered_map<std::string, Lower> m;
    const std::pair<const char*, OpCode> simple[] = {
        {"add", OpCode::add},
        {"subtract", OpCode::sub},
        {"multiply", OpCode::mul},
        {"divide", OpCode::div},
        {"maximum", OpCode::max},
        {"minimum", OpCode::min},
        {"negate", OpCode::neg},
        {"abs", OpCode::abs},
        {"exponential", OpCode::exp},
        {"log", OpCode::log},
        {"log_plus_one", OpCode::log1p},
        {"exponential_minus_one", OpCode::expm1},
        {"tanh", OpCode::tanh},
        {"logistic", OpCode::logistic},
        {"sqrt", OpCode::sqrt},
        {"rsqrt", OpCode::rsqrt},
        {"power", OpCode::pow},
        {"atan2", OpCode::atan2},
        {"sine", OpCode::sin},
        {"cosine", OpCode::cos},
        {"tan", OpCode::tan},
        {"floor", OpCode::floor},
        {"ceil", OpCode::ceil},
        {"round_nearest_afz", OpCode::round},
        {"remainder", OpCode::rem},
        {"sign", OpCode::sign},
        {"and", OpCode::and_},
        {"or", OpCode::or_},
        {"xor", OpCode::xor_},
        {"not", OpCode::not_},
        {"is_finite", OpCode::is_finite},
        {"clamp", OpCode::clamp},
        {"select", OpCode::select},
        {"shift_left", OpCode::shift_left},
        {"shift_right_logical", OpCode::shift_right_logical},
        {"shift_right_arithmetic", OpCode::shift_right_arithmetic},
    };
    for (auto [n, op] : simple) m[std::string("stablehlo.") + n] = unary(op);
    m["stablehlo.constant"] = [](Ctx& c, const OpSyntax& o, std::vector<ValueRef>&) {
      return std::vector<ValueRef>{c.b.constant(*attr(o, "value").literal)};
    };
    m["stablehlo.convert"] = [](Ctx& c, const OpSyntax& o, std::vector<ValueRef>& in) {
      if (o.out_types.size() != 1) fail(o.pos, "convert needs one result type");
      return std::vector<ValueRef>{
          c.b.add(OpCode::convert, in, ConvertAttrs{o.out_types[0].dtype})};
    };
    m["stablehlo.compare"] = [](Ctx& c, const OpSyntax& o, std::vector<ValueRef>& in) {
      auto d = direction(attr(o, "comparison_direction").word);
      if (!d)
        fail(o.pos, "unknown comparison direction '" + attr(o, "comparison_direction").word + "'");
      return std::vector<ValueRef>{c.b.add(OpCode::compare, in, CompareAttrs{*d})};
    };
    m["stablehlo.broadcast_in_dim"] = [](Ctx& c, const OpSyntax& o, std::vector<ValueRef>& in) {
      if (o.out_types.size() != 1) fail(o.pos, "broadcast_in_dim needs one result type");
      const AttrValue& d =
          o.attrs.count("dims") ? attr(o, "dims") : attr(o, "broadcast_dimensions");
      return std::vector<ValueRef>{c.b.add(
          OpCode::broadcast_in_dim, in, BroadcastInDimAttrs{o.out_types[0].shape, ints(d.ints)})};
    };
    m["stablehlo.reshape"] = [](Ctx& c, const OpSyntax& o, std::vector<ValueRef>& in) {
      if (o.out_types.size() != 1) fail(o.pos, "reshape needs one result type");
      return std::vector<ValueRef>{
          c.b.add(OpCode::reshape, in, ReshapeAttrs{o.out_types[0].shape})};
    };
    m["stablehlo.transpose"] = [](Ctx& c, const OpSyntax& o, std::vector<ValueRef>& in) {
      const AttrValue& d = o.attrs.count("dims") ? attr(o, "dims") : attr(o, "permutation");
      return std::vector<ValueRef>{c.b.add(OpCode::transpose, in, TransposeAttrs{ints(d.ints)})};
    };
    m["stablehlo.slice"] = [](Ctx& c, const OpSyntax& o, std::vector<ValueRef>& in) {
      return std::vector<ValueRef>{
          c.b.add(OpCode::slice, in,
                  SliceAttrs{ints(attr(o, "start_indices").ints),
                             ints(attr(o, "limit_indices").ints), ints(attr(o, "strides").ints)})};
    };
    m["stablehlo.concatenate"] = [](Ctx& c, const OpSyntax& o, std::vector<ValueRef>& in) {
      const AttrValue& d = o.attrs.count("dim") ? attr(o, "dim") : attr(o, "dimension");
      if (d.ints.size() != 1) fail(d.pos, "concatenate's dimension must be one integer");
      return std::vector<ValueRef>{c.b.add(OpCode::concatenate, in, ConcatenateAttrs{d.ints[0]})};
    };
    m["stablehlo.iota"] = [](Ctx& c, const OpSyntax& o, std::vector<ValueRef>&) {
      const AttrValue& d = attr(o, "iota_dimension");
      if (o.out_types.size() != 1 || d.ints.size() != 1) fail(o.pos, "iota needs dim and a type");
      const TensorType& t = o.out_types[0];
      return std::vector<ValueRef>{
          c.b.add(OpCode::iota, {}, IotaAttrs{t.dtype, t.shape, d.ints[0]})};
    };
    m["stablehlo.pad"] = [](Ctx& c, const OpSyntax& o, std::vector<ValueRef>& in) {
      auto pick = [&](const char* pretty, const char* generic) -> const AttrValue& {
        return o.attrs.count(pretty) ? attr(o, pretty) : attr(o, generic);
      };
      return std::vector<ValueRef>{
          c.b.add(OpCode::pad, in,
                  PadAttrs{ints(pick("low", "edge_padding_low").ints),
                           ints(pick("high", "edge_padding_high").ints),
                           ints(pick("interior", "interior_padding").ints)})};
    };
    m["stablehlo.dynamic_slice"] = [](Ctx& c, const OpSyntax& o, std::vector<ValueRef>& in) {
      const AttrValue& d = o.attrs.count("sizes") ? attr(o, "sizes") : attr(o, "slice_sizes");
      return std::vector<ValueRef>{
          c.b.add(OpCode::dynamic_slice, in, DynamicSliceAttrs{ints(d.ints)})};
    };
    m["stablehlo.dynamic_update_slice"] = unary(OpCode::dynamic_update_slice);
    m["stablehlo.optimization_barrier"] = [](Ctx& c, const OpSyntax&, std::vector<ValueRef>& in) {
      return c.b.add_multi(OpCode::optimization_barrier, in);
    };
    m["stablehlo.reverse"] = [](Ctx& c, const OpSyntax& o, std::vector<ValueRef>& in) {
      const AttrValue& d = o.attrs.count("dims") ? attr(o, "dims") : attr(o, "dimensions");
      return std::vector<ValueRef>{c.b.add(OpCode::rev, in, RevAttrs{ints(d.ints)})};
    };
    m["stablehlo.reduce"] = reduce;
    m["stablehlo.bitcast_convert"] = [](Ctx& c, const OpSyntax& o, std::vector<ValueRef>& in) {
      return bitcast_convert(c.b, o, in);
    };
    m["stablehlo.rng_bit_generator"] = [](Ctx& c, const OpSyntax& o, std::vector<ValueRef>& in) {
      return rng_bit_generator(c.b, o, in);
    };
    // The element the parser's use (%t#i) already picked out of the tuple.
    m["stablehlo.get_tuple_element"] = [](Ctx&, const OpSyntax& o, std::vector<ValueRef>& in) {
      if (in.size() != 1) fail(o.pos, "get_tuple_element takes one tuple");
      return std::vector<ValueRef>{in[0]};
    };
    m["stablehlo.dot_general"] = dot_general;
    m["stablehlo.gather"] = gather;
    m["stablehlo.dot"] = [](Ctx& c, const OpSyntax& o, std::vector<ValueRef>& in) {
      if (in.size() != 2) fail(o.pos, "dot takes 2 operands");
      int64_t r = static_cast<int64_t>(c.b.type(in[0]).shape.dims().size());
      return std::vector<ValueRef>{
          c.b.add(OpCode::dot_general, in, DotGeneralAttrs{{}, {}, {r - 1}, {0}})};
    };
    return m;
  }();
  return t;
}

std::vector<ValueRef> dot_general(Ctx& c, const OpSyntax& o, std::vector<ValueRef>& in) {
  DotGeneralAttrs a;
  auto pair = [&](const char* pretty, const char* l, const char* r, IntList& lo, IntList& ro) {
    if (auto it = o.attrs.find(pretty); it != o.attrs.end()) {
      lo = ints(it->second.ints);
      ro = ints(it->second.ints2);
    } else {
      if (auto il = o.attrs.find(l); il != o.attrs.end()) lo = ints(il->second.ints);
      if (auto ir = o.attrs.find(r); ir != o.attrs.end()) ro = ints(ir->second.ints);
    }
  };
  pair("batching_dims", "lhs_batching_dimensions", "rhs_batching_dimensions", a.lhs_batch,
       a.rhs_batch);
  pair("contracting_dims", "lhs_contracting_dimensions", "rhs_contracting_dimensions",
       a.lhs_contracting, a.rhs_contracting);
  if (auto it = o.attrs.find("dot_dimension_numbers"); it != o.attrs.end()) {
    // #stablehlo.dot<lhs_batching_dimensions = [0], ..., rhs_contracting_dimensions = [1]>
    dims_in(it->second, "lhs_batching_dimensions", a.lhs_batch);
    dims_in(it->second, "rhs_batching_dimensions", a.rhs_batch);
    dims_in(it->second, "lhs_contracting_dimensions", a.lhs_contracting);
    dims_in(it->second, "rhs_contracting_dimensions", a.rhs_contracting);
  }
  return {c.b.add(OpCode::dot_general, in, a)};
}

// The index_vector_dim of a gather or scatter, and the start indices with it moved last (lazax's
// gather and scatter_add read the index vector from the last dimension): index_vector_dim equal
// to the indices' rank is an implicit trailing 1, any other moves by a transpose.
ValueRef index_vector_last(Ctx& c, const OpSyntax& o, const AttrValue& dn, ValueRef indices) {
  IntList ivd;
  if (!dims_in(dn, "index_vector_dim", ivd) || ivd.size() != 1)
    fail(dn.pos, o.name + " needs index_vector_dim in its dimension numbers");
  const TensorType& t = c.b.type(indices);
  auto rank = static_cast<int64_t>(t.shape.dims().size());
  int64_t d = ivd[0];
  if (d < 0 || d > rank)
    fail(dn.pos, o.name + ": index_vector_dim " + std::to_string(d) + " is outside the " +
                     std::to_string(rank) + "-d start indices");
  if (d == rank) {
    std::vector<int64_t> dims = t.shape.dims();
    dims.push_back(1);
    return c.b.add(OpCode::reshape, {indices}, ReshapeAttrs{Shape(dims)});
  }
  if (d == rank - 1) return indices;
  IntList perm;
  for (int64_t k = 0; k < rank; ++k)
    if (k != d) perm.push_back(k);
  perm.push_back(d);
  return c.b.add(OpCode::transpose, {indices}, TransposeAttrs{perm});
}

// Batching dims (StableHLO's newer gather/scatter form) have no lazax counterpart yet.
void no_batching_dims(const OpSyntax& o, const AttrValue& dn, const char* a, const char* b) {
  IntList x, y;
  dims_in(dn, a, x);
  dims_in(dn, b, y);
  if (!x.empty() || !y.empty())
    fail(dn.pos, o.name + " with " + a + "/" + b + " is not supported (vmap the op instead)");
}

// gather: StableHLO clamps each start index so that the slice fits (lazax's mode clip).
std::vector<ValueRef> gather(Ctx& c, const OpSyntax& o, std::vector<ValueRef>& in) {
  if (in.size() != 2) fail(o.pos, "gather takes an operand and the start indices");
  const AttrValue& dn = attr(o, "dimension_numbers");
  no_batching_dims(o, dn, "operand_batching_dims", "start_indices_batching_dims");
  GatherAttrs a;
  a.mode = GatherMode::clip;
  dims_in(dn, "offset_dims", a.offset_dims);
  dims_in(dn, "collapsed_slice_dims", a.collapsed_slice_dims);
  dims_in(dn, "start_index_map", a.start_index_map);
  a.slice_sizes = ints(attr(o, "slice_sizes").ints);
  return {c.b.add(OpCode::gather, {in[0], index_vector_last(c, o, dn, in[1])}, a)};
}

// The values of enclosing blocks that a region uses (StableHLO regions capture implicitly), in
// first-use order; a lazax sub-function takes them as parameters instead.
void free_uses(const FuncSyntax& r, std::vector<const Use*>& out) {
  std::unordered_set<std::string> defined(r.params.begin(), r.params.end());
  auto add = [&](const Use& u) {
    if (defined.count(u.name) != 0) return;
    for (const Use* seen : out)
      if (seen->name == u.name) return;
    out.push_back(&u);
  };
  for (const OpSyntax& o : r.ops) {
    for (const Use& u : o.operands) add(u);
    for (const FuncSyntax& sub : o.regions) {
      std::vector<const Use*> inner;
      free_uses(sub, inner);
      for (const Use* u : inner) add(*u);
    }
    if (o.num_results > 0) defined.insert(o.result);
    defined.insert(o.result_names.begin(), o.result_names.end());
  }
}

// A ui64 tensor is read as its two ui32 words (parse_lex.cc): right for the ops that only carry
// values or read them as bits, wrong for any other.
void no_u64_arithmetic(const OpSyntax& o) {
  for (const char* ok : {"func.call", "stablehlo.while", "stablehlo.case", "stablehlo.if",
                         "stablehlo.optimization_barrier", "stablehlo.bitcast_convert",
                         "stablehlo.rng_bit_generator"}) {
    if (o.name == ok) return;
  }
  fail(o.pos, o.name +
                  " on ui64 values is not supported: lazax has no u64 and carries a ui64 "
                  "tensor as two ui32 words, through calls, control flow, bitcast_convert "
                  "and rng_bit_generator only");
}

using Env = std::unordered_map<std::string, std::vector<ValueRef>>;

// A captured value group (all results of one name), as extra parameters of a region.
struct Capture {
  std::string name;
  std::vector<TensorType> types;
};

struct Importer {
  const ModuleSyntax& m;
  std::unordered_map<std::string, const FuncSyntax*> by_name;
  std::unordered_map<std::string, FunctionPtr> done;
  std::vector<std::string> active;

  FunctionPtr get(const std::string& name, Pos p) {
    if (auto it = done.find(name); it != done.end()) return it->second;
    auto it = by_name.find(name);
    if (it == by_name.end()) fail(p, "call of an undefined function @" + name);
    for (const std::string& a : active)
      if (a == name) fail(p, "recursive call of @" + name);
    if (active.size() > kMaxNesting) fail(p, "calls nested too deep");
    active.push_back(name);
    FunctionPtr f = build(*it->second);
    active.pop_back();
    done[name] = f;
    return f;
  }

  // `captured` become parameters after f's own; with `pass_through` also results after f's own
  // (a while body carries them unchanged).
  FunctionPtr build(const FuncSyntax& f, const std::vector<Capture>& captured = {},
                    bool pass_through = false) {
    Ctx c{Builder(f.name), this};
    Env env;
    for (size_t i = 0; i < f.params.size(); ++i) {
      if (!env.emplace(f.params[i], std::vector<ValueRef>{c.b.param(f.param_types[i])}).second)
        fail(f.pos, "parameter " + f.params[i] + " defined twice");
    }
    std::vector<ValueRef> through;
    for (const Capture& cap : captured) {
      std::vector<ValueRef>& vs = env[cap.name];
      for (const TensorType& t : cap.types) vs.push_back(c.b.param(t));
      through.insert(through.end(), vs.begin(), vs.end());
    }
    if (!pass_through) through.clear();
    for (const OpSyntax& o : f.ops) {
      std::vector<ValueRef> in;
      for (const Use& u : o.operands) {
        auto it = env.find(u.name);
        if (it == env.end()) fail(u.pos, "use of undefined value " + u.name);
        if (u.index < 0 || static_cast<size_t>(u.index) >= it->second.size())
          fail(u.pos, u.name + " has no result #" + std::to_string(u.index));
        in.push_back(it->second[static_cast<size_t>(u.index)]);
      }
      // Operand types as written must be what the values are.
      for (size_t k = 0; o.in_types.size() == in.size() && k < in.size(); ++k) {
        if (!(c.b.type(in[k]) == o.in_types[k])) {
          fail(o.operands[k].pos, o.name + " operand " + std::to_string(k) + " is declared " +
                                      o.in_types[k].str() + " but " + o.operands[k].name + " is " +
                                      c.b.type(in[k]).str());
        }
      }
      if (o.name == "func.return" && f.region) {
        in.insert(in.end(), through.begin(), through.end());
        return c.b.build(in);
      }
      if (o.name == "func.return") {
        if (in.size() != f.result_types.size()) {
          fail(o.pos, "@" + f.name + " returns " + std::to_string(in.size()) +
                          " values, its signature says " + std::to_string(f.result_types.size()));
        }
        for (size_t k = 0; k < in.size(); ++k) {
          if (!(c.b.type(in[k]) == f.result_types[k])) {
            fail(o.pos, "@" + f.name + " result " + std::to_string(k) + " is " +
                            c.b.type(in[k]).str() + ", its signature says " +
                            f.result_types[k].str());
          }
        }
        FunctionPtr fn = c.b.build(in);
        verify(*fn);
        return fn;
      }
      if (o.u64_types > 0) no_u64_arithmetic(o);
      std::vector<ValueRef> out;
      try {
        if (o.name == "func.call") {
          const std::string& callee = o.callee.empty() ? attr(o, "callee").word : o.callee;
          out = c.b.add_multi(OpCode::call, in, CallAttrs{get(callee, o.pos)});
        } else if (!o.regions.empty()) {
          out = control(c, o, in, env);
        } else if (o.name == "stablehlo.custom_call") {
          auto t = o.attrs.find("call_target_name");
          std::string target = t != o.attrs.end() ? t->second.word : std::string();
          if (is_threefry_target(target)) {
            out = threefry_call(c.b, o, in);
          } else {
            fail(o.pos, "stablehlo.custom_call" + (target.empty() ? "" : " @" + target) +
                            " cannot be imported: lazax has no kernel for a foreign call target");
          }
        } else {
          auto it = table().find(o.name);
          if (it == table().end())
            fail(o.pos, "unsupported op '" + o.name + "' (docs/STABLEHLO.md lists the ops)");
          out = it->second(c, o, in);
        }
      } catch (const Error& e) {
        std::string msg = e.what();
        if (msg.rfind("[stablehlo]", 0) == 0) throw;
        fail(o.pos, o.name + ": " + msg + (o.loc.empty() ? "" : " at " + o.loc));
      }
      for (size_t k = 0; o.out_types.size() == out.size() && k < out.size(); ++k) {
        if (!(c.b.type(out[k]) == o.out_types[k])) {
          fail(o.pos, o.name + " declares result " + o.out_types[k].str() + " but computes " +
                          c.b.type(out[k]).str());
        }
      }
      bool one_tuple = o.tuple_types > 0 && o.num_results == 1 && o.result_names.empty();
      if (static_cast<size_t>(o.num_results) != out.size() && !one_tuple) {
        fail(o.pos, o.name + " has " + std::to_string(out.size()) + " results, " +
                        std::to_string(o.num_results) + " are named");
      }
      if (!o.result_names.empty()) {  // %a, %b = ...
        for (size_t k = 0; k < out.size(); ++k) {
          if (!env.emplace(o.result_names[k], std::vector<ValueRef>{out[k]}).second)
            fail(o.pos, "value " + o.result_names[k] + " defined twice");
        }
      } else if (o.num_results > 0 && !env.emplace(o.result, std::move(out)).second) {
        fail(o.pos, "value " + o.result + " defined twice");
      }
    }
    fail(f.pos, "@" + f.name + " has no return");
  }

  // while, case and if: each region a sub-function; the values they capture become operands.
  std::vector<ValueRef> control(Ctx& c, const OpSyntax& o, std::vector<ValueRef> in,
                                const Env& env) {
    std::vector<const Use*> uses;
    for (const FuncSyntax& r : o.regions) free_uses(r, uses);
    std::vector<Capture> caps;
    std::vector<ValueRef> cap_values;
    for (const Use* u : uses) {
      if (std::any_of(caps.begin(), caps.end(),
                      [&](const Capture& k) { return k.name == u->name; }))
        continue;
      auto it = env.find(u->name);
      if (it == env.end()) fail(u->pos, "use of undefined value " + u->name);
      Capture k{u->name, {}};
      for (ValueRef v : it->second) k.types.push_back(c.b.type(v));
      cap_values.insert(cap_values.end(), it->second.begin(), it->second.end());
      caps.push_back(std::move(k));
    }
    auto no_args = [&](const FuncSyntax& r) {
      if (!r.params.empty()) fail(r.pos, o.name + "'s branches take no block arguments");
      return build(r, caps);
    };
    if (o.name == "stablehlo.reduce" && in.size() == 4 && o.regions.size() == 1)
      return reduce_pair(c.b, o, in);
    if (o.name == "stablehlo.reduce") return reduce(c, generic_reduce(o), in);
    if (o.name == "stablehlo.scatter") return scatter(c, o, in);
    if (o.name == "stablehlo.while") {
      if (o.regions.size() != 2) fail(o.pos, "stablehlo.while needs a cond and a body region");
      for (const FuncSyntax& r : o.regions) {
        if (r.params.size() != in.size())
          fail(r.pos, "the region takes " + std::to_string(r.params.size()) +
                          " arguments, stablehlo.while carries " + std::to_string(in.size()));
      }
      size_t n = in.size();
      FunctionPtr cond = build(o.regions[0], caps), body = build(o.regions[1], caps, true);
      in.insert(in.end(), cap_values.begin(), cap_values.end());
      std::vector<ValueRef> out = c.b.add_multi(OpCode::while_, in, WhileAttrs{cond, body});
      out.resize(n);
      return out;
    }
    if (o.name == "stablehlo.case" || o.name == "stablehlo.if") {
      if (in.size() != 1 || o.regions.empty())
        fail(o.pos, o.name + " takes one index (or predicate) operand and at least one region");
      std::vector<FunctionPtr> branches;
      branches.reserve(o.regions.size());
      for (const FuncSyntax& r : o.regions) branches.push_back(no_args(r));
      ValueRef index = in[0];
      if (o.name == "stablehlo.if") {
        if (branches.size() != 2) fail(o.pos, "stablehlo.if needs a true and a false region");
        std::swap(branches[0], branches[1]);  // lazax's bool index: false -> 0, true -> 1
      } else {
        index = negative_to_last(c, index, static_cast<int64_t>(branches.size()));
      }
      std::vector<ValueRef> ops{index};
      ops.insert(ops.end(), cap_values.begin(), cap_values.end());
      return c.b.add_multi(OpCode::cond, ops, CondAttrs{branches});
    }
    fail(o.pos, "unsupported op with regions '" + o.name + "' (docs/STABLEHLO.md lists the ops)");
  }

  // scatter whose body adds (JAX's .at[].add): lazax's scatter_add, which drops an update
  // window that falls outside the operand, as XLA does (StableHLO leaves it to the
  // implementation). Other bodies (.at[].set, .min, .max) are not supported yet.
  static std::vector<ValueRef> scatter(Ctx& c, const OpSyntax& o, std::vector<ValueRef>& in) {
    if (in.size() != 3) {
      fail(o.pos,
           "scatter of several operands at once is not supported (one operand, the "
           "indices and one update)");
    }
    std::string body = attr(generic_reduce(o), "applies").word;
    if (body != "stablehlo.add")
      fail(o.regions[0].pos, "scatter with the body " + body +
                                 " is not supported: only one that adds (JAX's .at[].add)");
    const AttrValue& dn = attr(o, "scatter_dimension_numbers");
    no_batching_dims(o, dn, "input_batching_dims", "scatter_indices_batching_dims");
    ScatterAttrs a;
    dims_in(dn, "update_window_dims", a.update_window_dims);
    dims_in(dn, "inserted_window_dims", a.inserted_window_dims);
    dims_in(dn, "scatter_dims_to_operand_dims", a.scatter_dims_to_operand_dims);
    ValueRef idx = index_vector_last(c, o, dn, in[1]);
    return {c.b.add(OpCode::scatter_add, {in[0], idx, in[2]}, a)};
  }

  // The generic reduce, `({ ^bb0(%x: t, %y: t): %r = stablehlo.add %x, %y ...; return %r })`:
  // a body of one binary op on its two arguments is the pretty form's `applies`.
  static OpSyntax generic_reduce(const OpSyntax& o) {
    const FuncSyntax& r = o.regions[0];
    bool simple = o.regions.size() == 1 && r.params.size() == 2 && r.ops.size() == 2 &&
                  r.ops[0].operands.size() == 2 && r.ops[0].regions.empty() &&
                  r.ops[0].operands[0].name == r.params[0] &&
                  r.ops[0].operands[1].name == r.params[1] && r.ops[1].operands.size() == 1 &&
                  r.ops[1].operands[0].name == r.ops[0].result;
    if (!simple) {
      fail(r.pos, "a " + o.name.substr(o.name.find('.') + 1) +
                      " body other than one binary op on its two arguments is not supported");
    }
    OpSyntax pretty = o;
    pretty.regions.clear();
    pretty.attrs["applies"].word = r.ops[0].name;
    pretty.attrs["applies"].pos = r.ops[0].pos;
    return pretty;
  }

  // StableHLO's case runs the last branch for an index out of range; lazax's cond clamps, which
  // agrees above the range: a negative index is mapped to the last branch first.
  static ValueRef negative_to_last(Ctx& c, ValueRef index, int64_t n) {
    const TensorType& t = c.b.type(index);
    if (t.dtype != DType::i32 || !t.shape.dims().empty()) return index;  // the shape rule says
    Literal zero = Literal::zeros(t), last = Literal::zeros(t);
    last.data<int32_t>()[0] = static_cast<int32_t>(n - 1);
    ValueRef neg =
        c.b.add(OpCode::compare, {index, c.b.constant(zero)}, CompareAttrs{CompareDir::lt});
    return c.b.add(OpCode::select, {neg, c.b.constant(last), index});
  }
};

}  // namespace

FunctionPtr import_stablehlo(std::string_view text) {
  ModuleSyntax m = parse_module(text);
  Importer imp{m, {}, {}, {}};
  const FuncSyntax* entry = nullptr;
  for (const FuncSyntax& f : m.funcs) {
    if (!imp.by_name.emplace(f.name, &f).second) {
      fail(f.pos, "function @" + f.name + " defined twice");
    }
    if (f.name == "main") entry = &f;
  }
  if (!entry) {
    for (const FuncSyntax& f : m.funcs) {
      if (f.is_public) {
        if (entry) fail(f.pos, "no @main and several public functions: which one is the entry?");
        entry = &f;
      }
    }
  }
  if (!entry) fail(m.funcs[0].pos, "no @main and no public function");
  return imp.get(entry->name, entry->pos);
}

}  // namespace lazax::stablehlo
