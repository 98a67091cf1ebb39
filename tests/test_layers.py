"""The package's shape: imports flow one way down the stages, and no modules import each other in
a circle (docs/development.md, "Where things live"). Every import counts, including those inside
functions and under ``TYPE_CHECKING``: a circle drawn lazily is still a circle in the house."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "xprobe"

# Lowest first. A module may import from its own layer and the layers before it, never after.
LAYERS: tuple[tuple[str, ...], ...] = (
    # foundations; cli finds its subcommands by name (importlib), so it imports none of them
    (
        "xprobe",
        "xprobe.errors",
        "xprobe.files",
        "xprobe.leftovers",
        "xprobe.protocol",
        "xprobe.resources",
        "xprobe.ud",
        "xprobe.languages",
        "xprobe.download",
        "xprobe.cli",
    ),
    ("xprobe.corpus",),
    ("xprobe.tasks",),
    ("xprobe.profiles",),
    ("xprobe.extract",),
    ("xprobe.encoders",),
    ("xprobe.nli",),
    ("xprobe.mapping",),
    ("xprobe.probe",),
    ("xprobe.pairs",),
    ("xprobe.report",),
    ("xprobe.export",),
    ("xprobe.sample",),
    ("xprobe.study",),
    ("xprobe.demo",),
    ("xprobe.commands", "xprobe.__main__", "xprobe.api"),
)


def module_name(path: Path, root: Path) -> str:
    parts = path.relative_to(root.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def modules(root: Path) -> dict[str, Path]:
    return {module_name(p, root): p for p in sorted(root.rglob("*.py"))}


def imports(path: Path, name: str, known: set[str]) -> set[str]:
    """The package's own modules that ``path`` (module ``name``) imports, most specific first:
    ``from a.b import c`` names ``a.b.c`` when that is a module, else ``a.b``."""
    tree = ast.parse(path.read_text("utf-8"), str(path))
    is_pkg = path.name == "__init__.py"
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = name.split(".")
                anchor = anchor if is_pkg else anchor[:-1]
                anchor = anchor[: len(anchor) - (node.level - 1)]
                base = ".".join([*anchor, base] if base else anchor)
            for a in node.names:
                sub = f"{base}.{a.name}"
                found.add(sub if sub in known else base)
    return {m for m in found if m in known and m != name}


def layer_of(name: str, layers=LAYERS) -> int:
    best, rank = -1, -1
    for i, prefixes in enumerate(layers):
        for p in prefixes:
            if (name == p or name.startswith(p + ".")) and len(p) > best:
                best, rank = len(p), i
    if rank < 0:
        raise AssertionError(f"module {name} belongs to no layer: add it to LAYERS")
    return rank


def graph(root: Path) -> dict[str, set[str]]:
    mods = modules(root)
    known = set(mods)
    return {name: imports(path, name, known) for name, path in mods.items()}


def upward(g: dict[str, set[str]], layers=LAYERS) -> list[str]:
    return sorted(
        f"{src} -> {dst}"
        for src, targets in g.items()
        for dst in targets
        if layer_of(dst, layers) > layer_of(src, layers)
    )


def cycles(g: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    out: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in sorted(g.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in sorted(g):
        if v not in index:
            visit(v)
    return out


def test_every_module_has_a_layer() -> None:
    for name in modules(PACKAGE):
        layer_of(name)


def test_no_upward_imports() -> None:
    assert upward(graph(PACKAGE)) == []


def test_no_import_circles() -> None:
    assert cycles(graph(PACKAGE)) == []


def _tree(tmp_path: Path, files: dict[str, str]) -> Path:
    root = tmp_path / "xprobe"
    for rel, text in files.items():
        p = root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text)
    return root


@pytest.mark.parametrize(
    ("files", "expected"),
    [
        (
            {"probe/harness.py": "from xprobe.report.build import x\n"},
            ["xprobe.probe.harness -> xprobe.report.build"],
        ),
        (
            {"probe/harness.py": "def f():\n    from ..report import build\n"},
            ["xprobe.probe.harness -> xprobe.report.build"],
        ),
        ({"ud.py": "import xprobe.probe.harness\n"}, ["xprobe.ud -> xprobe.probe.harness"]),
        ({"probe/harness.py": "from xprobe.ud import Sentence\n"}, []),
    ],
)
def test_checker_sees_upward_imports(tmp_path: Path, files: dict[str, str], expected) -> None:
    base = {"__init__.py": "", "ud.py": "", "probe/__init__.py": "", "probe/harness.py": "",
            "report/__init__.py": "", "report/build.py": ""}  # fmt: skip
    root = _tree(tmp_path, {**base, **files})
    assert upward(graph(root)) == expected


def test_checker_sees_circles(tmp_path: Path) -> None:
    root = _tree(tmp_path, {
        "__init__.py": "", "probe/__init__.py": "",
        "probe/a.py": "from xprobe.probe.b import f\n",
        "probe/b.py": "def f():\n    from xprobe.probe import a\n",
    })  # fmt: skip
    assert cycles(graph(root)) == [["xprobe.probe.a", "xprobe.probe.b"]]
