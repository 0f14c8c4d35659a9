"""Checks that the repository's docs stand on their own and stay true to the tree:
- every relative link in docs/*.md and README.md leads to a file or folder of the repository;
- every file name `Name.md` they mention is a file of the repository;
- every path they give in backquotes under src/, include/, tests/, apps/, bench/, docs/,
  examples/ or cmake/ exists (a path with a placeholder, <layer> or *, is skipped);
- every LAZAX_* variable that Options::from_env reads is in docs/OPTIONS.md's table, and no file
  of src/, include/, apps/ or bench/ but src/core/options.cc calls getenv.
Prints each problem; exit 1 if there is any. Usage: check_docs.py SOURCE_DIR"""
import pathlib
import re
import sys

LINK = re.compile(r"\]\(([^)\s]+)\)")
MD_NAME = re.compile(r"\b([A-Z][A-Za-z_]+\.md)\b")
CODE = re.compile(r"`([^`\n]+)`")
ROOTS = ("src/", "include/", "tests/", "apps/", "bench/", "docs/", "examples/", "cmake/")


def main() -> int:
    root = pathlib.Path(sys.argv[1]).resolve()
    docs = sorted((root / "docs").glob("*.md")) + [root / "README.md"]
    # The repository's own files: not build trees (build/, build-asan/, build-fuzz/, which other
    # tests write into while this runs) or dot-directories.
    tops = [d for d in root.iterdir() if not d.name.startswith(("build", "."))]
    md_names = {p.name for d in tops for p in ([d] if d.is_file() else d.rglob("*.md"))
                if p.suffix == ".md"}
    bad = []
    for doc in docs:
        text = doc.read_text()
        rel = doc.relative_to(root)
        for m in LINK.finditer(CODE.sub("", text)):  # (not inside code: `f(x...)`)
            target = m.group(1).split("#")[0]
            if not target or "://" in target or target.startswith("mailto:"):
                continue
            if not (doc.parent / target).exists():
                bad.append(f"{rel}: the link ({m.group(1)}) leads to no file of the repository")
        for m in MD_NAME.finditer(text):
            if m.group(1) not in md_names:
                bad.append(f"{rel}: cites {m.group(1)}, which is not in the repository")
        for m in CODE.finditer(text):
            word = m.group(1).split()[0].rstrip(".,:;)")
            if not word.startswith(ROOTS) or any(c in word for c in "<>*{}$|"):
                continue
            path = word.split(":")[0]
            if not (root / path).exists():
                bad.append(f"{rel}: `{m.group(1)}` names {path}, which does not exist")
    # The options: one reader of the environment, one table.
    options = (root / "src/core/options.cc").read_text()
    table = (root / "docs/OPTIONS.md").read_text()
    for var in sorted(set(re.findall(r'"(LAZAX_[A-Z_]+)"', options))):
        if f"`{var}`" not in table:
            bad.append(f"docs/OPTIONS.md: {var} (read by Options::from_env) has no row")
    for d in ("src", "include", "apps", "bench"):
        for p in sorted((root / d).rglob("*")):
            if p.suffix not in (".h", ".cc") or p == root / "src/core/options.cc":
                continue
            if re.search(r"\bgetenv\s*\(", p.read_text()):
                bad.append(f"{p.relative_to(root)}: calls getenv; read configuration through "
                           "lazax::Options (src/core/options.cc) instead")
    for b in bad:
        print(b)
    print(f"checked {len(docs)} docs: {len(bad)} problems")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
