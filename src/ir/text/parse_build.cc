// The build pass of the IR parser: orders the parsed functions so that every function is built
// after the functions it references (rejecting undefined names, recursion and too-deep nesting),
// then makes each one with Builder. Errors of the shape rules become ParseErrors at the node.
#include <unordered_map>

#include "lazax/core/error.h"
#include "lazax/ir/builder.h"
#include "lazax/ir/printer.h"
#include "parser.h"

namespace lazax::text {
namespace {

[[noreturn]] void fail(Pos p, const std::string& msg) { throw ParseError(msg, p.line, p.column); }

// Depth-first order over the references, iterative so that long chains cannot exhaust the
// stack. Returns function indices, callees before callers.
std::vector<size_t> build_order(const std::vector<FuncAst>& funcs,
                                const std::unordered_map<std::string_view, size_t>& by_name) {
  // The references of each function, resolved to indices.
  std::vector<std::vector<std::pair<size_t, const FuncRef*>>> refs(funcs.size());
  for (size_t f = 0; f < funcs.size(); ++f) {
    for (const auto& st : funcs[f].stmts) {
      for (const auto& r : st.callees) {
        auto it = by_name.find(r.name);
        if (it == by_name.end()) {
          fail(r.pos, "reference to undefined function @" + r.name + " (define it with 'func @" +
                          r.name + "(...) -> (...) { ... }')");
        }
        refs[f].emplace_back(it->second, &r);
      }
    }
  }
  enum : uint8_t { kNew, kOnStack, kDone };
  std::vector<uint8_t> state(funcs.size(), kNew);
  std::vector<int> depth(funcs.size(), 1);
  std::vector<size_t> order;
  std::vector<std::pair<size_t, size_t>> stack;  // (function, next reference)
  for (size_t root = 0; root < funcs.size(); ++root) {
    if (state[root] != kNew) {
      continue;
    }
    state[root] = kOnStack;
    stack.emplace_back(root, 0);
    while (!stack.empty()) {
      auto& [f, next] = stack.back();
      if (next < refs[f].size()) {
        auto [g, ref] = refs[f][next++];
        if (state[g] == kOnStack) {
          std::string path;
          size_t k = 0;
          while (stack[k].first != g) {
            ++k;
          }
          for (; k < stack.size(); ++k) {
            path += "@" + funcs[stack[k].first].name + " -> ";
          }
          fail(ref->pos, "recursion: " + path + "@" + funcs[g].name +
                             "; a function cannot call itself, use while or scan to loop");
        }
        if (state[g] == kNew) {
          state[g] = kOnStack;
          stack.emplace_back(g, 0);
        }
        continue;
      }
      for (const auto& [g, ref] : refs[f]) {
        depth[f] = std::max(depth[f], depth[g] + 1);
      }
      if (depth[f] > kMaxNesting) {
        fail(funcs[f].pos, "@" + funcs[f].name + " nests sub-functions " +
                               std::to_string(depth[f]) + " levels deep; the limit is " +
                               std::to_string(kMaxNesting));
      }
      state[f] = kDone;
      order.push_back(f);
      stack.pop_back();
    }
  }
  return order;
}

// Fills the function fields of `attrs` (in visit order) from the references of the statement.
void resolve_callees(StmtAst& st, const std::unordered_map<std::string_view, size_t>& by_name,
                     const std::vector<FunctionPtr>& built) {
  auto find = [&](size_t field, size_t element) -> FunctionPtr {
    for (const auto& r : st.callees) {
      if (r.field == field && r.element == element) {
        return built[by_name.at(r.name)];
      }
    }
    return nullptr;
  };
  std::visit(
      [&](auto& s) {
        size_t k = 0;
        std::decay_t<decltype(s)>::visit(s, [&](std::string_view, auto& field) {
          using T = std::decay_t<decltype(field)>;
          if constexpr (std::is_same_v<T, FunctionPtr>) {
            field = find(k, 0);
          } else if constexpr (std::is_same_v<T, std::vector<FunctionPtr>>) {
            for (size_t e = 0; e < field.size(); ++e) {
              field[e] = find(k, e);
            }
          }
          ++k;
        });
      },
      st.attrs);
}

FunctionPtr build_function(FuncAst& f, const std::unordered_map<std::string_view, size_t>& by_name,
                           const std::vector<FunctionPtr>& built) {
  Builder b(f.name);
  for (size_t i = 0; i < f.params.size(); ++i) {
    b.param(f.params[i], f.param_debug[i]);
  }
  for (auto& st : f.stmts) {
    resolve_callees(st, by_name, built);
    Node n;
    n.op = st.op;
    n.attrs = std::move(st.attrs);
    n.operands.assign(st.operands.begin(), st.operands.end());
    n.outputs = std::move(st.types);
    n.debug = st.debug;
    try {
      b.add_node(std::move(n));
    } catch (const ParseError&) {
      throw;
    } catch (const Error& e) {
      fail(st.op_pos, e.what());
    }
  }
  return b.build(f.returns);
}

}  // namespace

FunctionPtr build_program(std::vector<FuncAst>& funcs, std::vector<std::string>* param_names) {
  std::unordered_map<std::string_view, size_t> by_name;
  for (size_t i = 0; i < funcs.size(); ++i) {
    by_name.emplace(funcs[i].name, i);
  }
  std::vector<FunctionPtr> built(funcs.size());
  for (size_t f : build_order(funcs, by_name)) {
    built[f] = build_function(funcs[f], by_name, built);
  }
  auto main = by_name.find("main");
  const size_t m = main != by_name.end() ? main->second : funcs.size() - 1;
  if (param_names) *param_names = funcs[m].param_names;
  return built[m];
}

}  // namespace lazax::text

namespace lazax {

FunctionPtr parse_program(std::string_view text, std::vector<std::string>* param_names) {
  std::vector<text::Token> tokens = text::lex(text);
  std::vector<text::FuncAst> funcs = text::parse_syntax(tokens);
  return text::build_program(funcs, param_names);
}

}  // namespace lazax
