"""Cases of run.py for Tensor's method forms, comparison operators and compound assignment: each
driver op runs on (a spread of) the cases of the free function it stands beside, and is compared
with torch's own method or operator (see cases.py for the format)."""
import operator

from cases import TORCH, lax_shift

PER_OP = 8  # cases taken from each base op, spread over its list (dtypes, shapes, specials)

# Method forms: driver op -> (base op whose cases it reuses, torch reference).
UNARY = ("abs neg sign exp log log1p expm1 sqrt rsqrt square sin cos tanh sigmoid erf floor round relu "
         "ceil erfinv exp2 tan isfinite bitwise_not").split()
METHODS = {f"Tensor::{m}": (m, lambda t, a, m=m: getattr(t[0], m)()) for m in UNARY}
METHODS.update({
    "Tensor::silu": ("silu", TORCH["silu"]),
    "Tensor::gelu": ("gelu", TORCH["gelu"]),
    "Tensor::softmax": ("softmax", lambda t, a: t[0].softmax(a["dim"])),
    "Tensor::log_softmax": ("log_softmax", lambda t, a: t[0].log_softmax(a["dim"])),
    "Tensor::amin": ("amin", TORCH["amin"]),
    "Tensor::prod": ("prod", TORCH["prod"]),
    "Tensor::logsumexp": ("logsumexp", TORCH["logsumexp"]),
    "Tensor::cumsum": ("cumsum", lambda t, a: t[0].cumsum(a["dim"])),
    "Tensor::min": ("min", lambda t, a: t[0].min(a["dim"], a.get("keepdim", False)).values),
    "Tensor::argmin": ("argmin", lambda t, a: t[0].argmin(a["dim"], a.get("keepdim", False))),
    "Tensor::all": ("all", lambda t, a: t[0].all()),
    "Tensor::any": ("any", lambda t, a: t[0].any()),
    "Tensor::all_dim": ("all_dim", lambda t, a: t[0].all(a["dim"], a.get("keepdim", False))),
    "Tensor::any_dim": ("any_dim", lambda t, a: t[0].any(a["dim"], a.get("keepdim", False))),
    "Tensor::cumprod": ("cumprod", lambda t, a: t[0].cumprod(a["dim"])),
    "Tensor::cummax": ("cummax_indices", lambda t, a: t[0].cummax(a["dim"]).indices),
    "Tensor::cummin": ("cummin", lambda t, a: t[0].cummin(a["dim"]).values),
    "Tensor::flip": ("flip", lambda t, a: t[0].flip(a["dims"])),
    "Tensor::sort": ("sort", lambda t, a: t[0].sort(dim=a["dim"], descending=a["descending"], stable=True).values),
    "Tensor::argsort": ("argsort", TORCH["argsort"]),
    "Tensor::topk": ("topk_indices", lambda t, a: t[0].topk(a["k"], a["dim"], a["largest"]).indices),
    "Tensor::pow": ("pow", lambda t, a: t[0].pow(t[1])),
    "Tensor::pow_scalar": ("pow_scalar", lambda t, a: t[0].pow(a["exponent"])),
    "Tensor::pow_int": ("pow_int", lambda t, a: t[0].pow(a["exponent"])),
    "Tensor::clamp": ("clamp", lambda t, a: t[0].clamp(a.get("min"), a.get("max"))),
})
for m in ("maximum minimum matmul add sub mul div eq ne lt le gt ge fmod remainder bitwise_and bitwise_or "
          "bitwise_xor bitwise_left_shift bitwise_right_shift").split():
    METHODS[f"Tensor::{m}"] = (m, lambda t, a, m=m: getattr(t[0], m)(t[1]))

for m in ["bitwise_left_shift", "bitwise_right_shift"]:  # out-of-range amounts: lax's rule
    METHODS[f"Tensor::{m}"] = (m, lax_shift(m))

OPS = {"==": operator.eq, "!=": operator.ne, "<": operator.lt, "<=": operator.le, ">": operator.gt,
       ">=": operator.ge}
for name, base in [("==", "eq"), ("!=", "ne"), ("<=", "le"), (">=", "ge")]:
    METHODS[f"operator{name}"] = (base, lambda t, a, f=OPS[name]: f(t[0], t[1]))
    METHODS[f"tensor{name}scalar"] = ("tensor<scalar", lambda t, a, f=OPS[name]: f(t[0], a["value"]))
    METHODS[f"tensor{name}int"] = ("tensor<int", lambda t, a, f=OPS[name]: f(t[0], a["value"]))
for name, f in OPS.items():
    METHODS[f"scalar{name}tensor"] = ("tensor<scalar", lambda t, a, f=f: f(a["value"], t[0]))
    METHODS[f"int{name}tensor"] = ("tensor<int", lambda t, a, f=f: f(a["value"], t[0]))

# In place: torch's in-place method on a clone (the driver's result is the rebound handle).
INPLACE = {
    "sub_scalar_": ("add_scalar_", lambda t, a: t[0].clone().sub_(a["value"])),
    "div_": ("mul_", lambda t, a: t[0].clone().div_(t[1])),
    "sub_int_": ("add_int_", lambda t, a: t[0].clone().sub_(a["value"])),
    "div_int_": ("add_int_", lambda t, a: t[0].clone().div_(a["value"])),
}
for sym, method, tensor_base, scalar_bases in [("+", "add_", "add_", ["add_scalar_", "add_int_"]),
                                               ("-", "sub_", "sub_", ["add_scalar_", "add_int_"]),
                                               ("*", "mul_", "mul_", ["mul_scalar_", "mul_int_"]),
                                               ("/", "div_", "mul_", ["div_scalar_", "add_int_"])]:
    INPLACE[f"operator{sym}="] = (tensor_base, lambda t, a, m=method: getattr(t[0].clone(), m)(t[1]))
    INPLACE[f"operator{sym}=scalar"] = (scalar_bases, lambda t, a, m=method: getattr(t[0].clone(), m)(a["value"]))


def spread(cases, n):
    if len(cases) <= n:
        return cases
    step = len(cases) / n
    return [cases[int(i * step)] for i in range(n)]


def method_cases(base_cases):
    by_op = {}
    for c in base_cases:
        by_op.setdefault(c.op, []).append(c)
    out = []
    for op, (bases, ref) in list(METHODS.items()) + list(INPLACE.items()):
        bases = bases if isinstance(bases, list) else [bases]
        for base in bases:
            for c in spread(by_op[base], PER_OP):
                out.append(c._replace(name=f"{op}~{c.name}", op=op, ref=ref))
    # clamp_min / clamp_max: the clamp cases with that bound given.
    for op, key, f in [("Tensor::clamp_min", "min", lambda t, a: t[0].clamp_min(a["min"])),
                       ("Tensor::clamp_max", "max", lambda t, a: t[0].clamp_max(a["max"]))]:
        given = [c for c in by_op["clamp"] if c.args.get(key) is not None]
        for c in spread(given, PER_OP):
            out.append(c._replace(name=f"{op}~{c.name}", op=op, ref=f, args={key: c.args[key]}))
    return out
