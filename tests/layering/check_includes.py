"""Checks the include directions of lazax's sources: a file of a layer (src/<layer>/ or
include/lazax/<layer>/) includes public headers of its own layer and the layers below it only, and
never reaches into another directory by a relative path ("../"). Prints each violation; exit 1 if
there is any. Usage: check_includes.py SOURCE_DIR"""
import pathlib
import re
import sys

# Each layer and the layers it may include (DESIGN.md's table; docs/ARCHITECTURE.md).
ALLOWED = {
    "core": {"core"},
    "dist": {"core", "dist"},
    "ir": {"core", "ir"},
    "interp": {"core", "ir", "dist", "interp"},
    "io": {"core", "ir", "io"},
    "passes": {"core", "ir", "dist", "interp", "passes"},
    "trace": {"core", "ir", "trace"},
    "backend": {"core", "ir", "dist", "interp", "passes", "backend"},
    "runtime": {"core", "ir", "trace", "passes", "backend", "runtime"},
    "api": {"core", "ir", "dist", "trace", "passes", "backend", "runtime", "api"},
    "autodiff": {"core", "ir", "dist", "trace", "passes", "backend", "runtime", "api",
                 "autodiff"},
    "nn": {"core", "ir", "dist", "trace", "passes", "backend", "runtime", "api", "autodiff",
           "nn"},
    "optim": {"core", "ir", "dist", "io", "trace", "passes", "backend", "runtime", "api",
              "autodiff", "optim"},
}
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def layer_of(root: pathlib.Path, path: pathlib.Path):
    rel = path.relative_to(root).parts
    if rel[0] == "src":
        return rel[1]
    if rel[:2] == ("include", "lazax") and len(rel) > 3:
        return rel[2]
    return None


def main() -> int:
    root = pathlib.Path(sys.argv[1]).resolve()
    files = [p for d in ("src", "include") for p in (root / d).rglob("*")
             if p.suffix in (".h", ".cc")]
    bad = []
    for path in sorted(files):
        layer = layer_of(root, path)
        if layer not in ALLOWED:
            continue
        for m in INCLUDE.finditer(path.read_text()):
            inc = m.group(1)
            where = f"{path.relative_to(root)}: #include \"{inc}\""
            if inc.startswith("../") or "/../" in inc:
                bad.append(f"{where}: a relative include into another directory; include the "
                           "header by its public path (lazax/<layer>/...)")
                continue
            parts = inc.split("/")
            if parts[0] == "lazax" and len(parts) > 2 and parts[1] not in ALLOWED[layer]:
                bad.append(f"{where}: the {layer} layer may not include a header of the "
                           f"{parts[1]} layer, which sits above it")
    for b in bad:
        print(b)
    print(f"checked {len(files)} files: {len(bad)} include-direction violations")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
