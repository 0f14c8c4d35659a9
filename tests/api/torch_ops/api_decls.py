"""The public functions and methods declared in a C++ header, as normalized signatures.

Used by torch_ops_coverage.py. A signature is `name(type,type) const` with parameter names,
default values and extra spaces removed; methods are `Class::name(...)`, constructors
`Class::Class(...)`. Deleted and private members, destructors and fields are left out.
This reads the plain style of include/lazax/api/*.h, not arbitrary C++.
"""
import re


def strip_comments(text):
    text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
    text = re.sub(r"//[^\n]*", " ", text)
    return re.sub(r"^\s*#[^\n]*", " ", text, flags=re.M)  # preprocessor lines


def matching(text, i, open_ch, close_ch):
    """The index just past the bracket that closes the one at text[i]."""
    depth = 0
    for j in range(i, len(text)):
        if text[j] == open_ch:
            depth += 1
        elif text[j] == close_ch:
            depth -= 1
            if depth == 0:
                return j + 1
    raise ValueError(f"unbalanced {open_ch} at {i}")


def split_top(s, sep=","):
    """Splits at `sep` outside (), <>, [] and {}."""
    parts, depth, cur = [], 0, ""
    for ch in s:
        if ch in "(<[{":
            depth += 1
        elif ch in ")>]}":
            depth -= 1
        if ch == sep and depth == 0:
            parts.append(cur)
            cur = ""
        else:
            cur += ch
    if cur.strip():
        parts.append(cur)
    return parts


def param_type(p):
    p = split_top(p, "=")[0].strip()  # no default value
    tokens = re.findall(r"::|\w+|[^\w\s]", p)
    # `double exponent` names its parameter, `double` or `const Tensor&` does not.
    if len(tokens) >= 2 and re.match(r"\w+$", tokens[-1]) and tokens[-2] not in ("::", "const"):
        p = p[: p.rfind(tokens[-1])]
    return normalize_type(p)


def normalize_type(t):
    t = re.sub(r"\s+", " ", t.strip())
    t = re.sub(r"\s*([&*<>,:()])\s*", r"\1", t)
    return t


def normalize(sig):
    """Normalizes a signature written by hand (`pow(const Tensor& a, double e)` or the bare
    types) to the form `declarations` returns."""
    m = re.match(r"\s*((?:[\w:~]*::)?operator\s*(?:\(\)|[^\s(]+)|[\w:~]+)\s*\((.*)\)\s*(const)?\s*$", sig,
                 re.S)
    if not m:
        raise ValueError(f"not a signature: {sig!r}")
    name = re.sub(r"operator\s*(?=\w)", "operator ", re.sub(r"\s+", "", m.group(1)))
    params = ",".join(param_type(p) for p in split_top(m.group(2)))
    return f"{name}({params})" + (" const" if m.group(3) else "")


def body_free(text):
    """`text` with every {...} body replaced by `;` (inline definitions become declarations)."""
    out, i = "", 0
    while i < len(text):
        if text[i] == "{":
            end = matching(text, i, "{", "}")
            # `= {}` or `f({1, 2})` is a value, not a body.
            out += text[i:end] if out.rstrip()[-1:] in ("=", ",", "(") else ";"
            i = end
        else:
            out += text[i]
            i += 1
    return out


def function_decls(text, prefix, cls=None):
    """Signatures of the function declarations in `text` (bodies already removed)."""
    sigs = []
    for decl in text.split(";"):
        decl = re.sub(r"^\s*(public|private|protected)\s*:", " ", decl.strip()).strip()
        decl = re.sub(r"^template\s*<[^>]*>\s*", "", decl)
        m = re.search(r"(operator\s*(?:\(\)|[^\s(]+)|~?\w+)\s*\(", decl)
        if not m or decl.startswith(("using ", "friend ", "static_assert")):
            continue
        if re.search(r"=\s*(delete|default)\s*$", decl):
            continue
        name = re.sub(r"operator\s*(?=\w)", "operator ", re.sub(r"\s+", "", m.group(1)))
        if name.startswith("~"):
            continue
        close = matching(decl, m.end() - 1, "(", ")")
        rest = decl[close:].strip()
        if rest.startswith("("):  # a function pointer or similar: not a plain declaration
            continue
        const = " const" if re.match(r"const\b", rest) else ""
        if cls and name == cls:
            name = cls  # a constructor
        params = ",".join(param_type(p) for p in split_top(decl[m.end():close - 1]))
        sigs.append(f"{prefix}{name}({params}){const}")
    return sigs


def declarations(path):
    """Every public function of the header's namespace scope and of its classes' public parts."""
    text = strip_comments(open(path).read())
    sigs, scope, i = [], "", 0
    for m in re.finditer(r"\b(class|struct)\s+(\w+)\s*(?:final\s*)?(?::[^{;]*)?\{", text):
        if m.start() < i:
            continue  # nested in a class handled already
        scope += text[i:m.start()]
        end = matching(text, m.end() - 1, "{", "}")
        body = text[m.end():end - 1]
        kind, cls = m.group(1), m.group(2)
        # Only the public parts: sections after `private:`/`protected:` up to the next `public:`.
        public, visible = "", kind == "struct"
        for part in re.split(r"\b(public|private|protected)\s*:", body_free(body)):
            if part in ("public", "private", "protected"):
                visible = part == "public"
            elif visible:
                public += part + ";"
        sigs += function_decls(public, f"{cls}::", cls)
        i = end
    scope += text[i:]
    while m := re.search(r"\bnamespace\s+\w+\s*\{", scope):  # namespace braces out
        end = matching(scope, m.end() - 1, "{", "}")
        scope = scope[:m.start()] + scope[m.end():end - 1] + ";" + scope[end:]
    sigs += function_decls(body_free(scope), "")
    return sigs
