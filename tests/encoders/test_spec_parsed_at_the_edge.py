"""An encoder spec string is parsed in one place, at the edge (issue 31): no module below the
edge splits, sniffs or re-parses one. The parser is :mod:`xprobe.encoders.encoder_spec` (with
what a spec's files say, :mod:`xprobe.encoders.spec_files`); the edges are the commands, the
Python API and the study file; a few library functions take a Python caller's string and parse
it once on entry (listed below by name: a new one is a decision, not an accident)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[2] / "xprobe"

PARSERS = {"encoders/encoder_spec.py", "encoders/spec_files.py"}
EDGES = {"cli.py", "api.py", "study/steps.py"}  # and every module of commands/
# (module, function) that parses a Python caller's string once, on entry
ENTRIES = {
    ("encoders/spec.py", "parse_encoder"),
    ("encoders/transformer.py", "load_transformer"),
    ("probe/harness.py", "run_probe"),
    ("mapping/config.py", "__post_init__"),
    ("mapping/student.py", "load"),
    ("mapping/xnli.py", "__post_init__"),
    ("nli/head.py", "__post_init__"),
    ("pairs/lm.py", "load_lm"),
}
# the parser's entry points: only at the edge (or in an entry above)
PARSE = {"parse", "student_spec"}
# string helpers and file readers of the parser: called by the parser alone
HELPERS = {
    "split_display_name", "default_name", "parse_transformer_spec", "is_transformer_spec",
    "read_teacher", "teacher_of", "read_provenance", "encoder_fields", "_split_name",
    "_parse_string", "card_name", "model_name", "read_config_teacher",
}  # fmt: skip
HELPER_USERS = {"encoders/pyobj.py": {"model_name"}}  # a model object has no spec: its name
PREFIXES = ("hf:", "st:", "bov:", "pmeans:", "random:", "npy:", "python:")
SPECLIKE = ("spec", "encoder", "teacher", "student", "frozen")
SPLITS = {"partition", "rpartition", "split", "rsplit", "startswith", "endswith", "count"}


def _modules() -> dict[str, ast.Module]:
    return {
        p.relative_to(PACKAGE).as_posix(): ast.parse(p.read_text("utf-8"), str(p))
        for p in sorted(PACKAGE.rglob("*.py"))
    }


def _functions(tree: ast.Module) -> dict[ast.AST, str]:
    """Each node -> the name of the innermost function around it ("" at module level)."""
    owner: dict[ast.AST, str] = {}

    def visit(node: ast.AST, name: str) -> None:
        for child in ast.iter_child_nodes(node):
            inner = (
                child.name if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)) else name
            )
            owner[child] = inner
            visit(child, inner)

    visit(tree, "")
    return owner


def _called(node: ast.Call) -> str:
    f = node.func
    return f.attr if isinstance(f, ast.Attribute) else f.id if isinstance(f, ast.Name) else ""


def _speclike(node: ast.AST) -> bool:
    """A variable or attribute named like a spec (a record's field, ``e.get("encoder")``, is
    data read back, not a spec)."""
    if not isinstance(node, (ast.Name, ast.Attribute, ast.Subscript)):
        return False
    text = ast.unparse(node).lower()
    return any(w in text for w in SPECLIKE)


def _violations(rel: str, tree: ast.Module) -> list[str]:
    if rel in PARSERS:
        return []
    edge = rel in EDGES or rel.startswith("commands/")
    owner = _functions(tree)
    in_fstring = {
        id(c) for n in ast.walk(tree) if isinstance(n, ast.JoinedStr) for c in ast.walk(n)
    }  # fmt: skip  (messages and ids, built not parsed)
    bad = []
    for node in ast.walk(tree):
        where = f"{rel}:{getattr(node, 'lineno', 0)}"
        if isinstance(node, ast.Call):
            name = _called(node)
            receiver = node.func.value if isinstance(node.func, ast.Attribute) else None
            if name == "parse" and not (
                isinstance(receiver, ast.Name) and receiver.id == "EncoderSpec"
            ):
                name = ""  # another class's parse
            if name in PARSE and not edge and (rel, owner.get(node, "")) not in ENTRIES:
                bad.append(f"{where}: {name}() below the edge")
            if name in HELPERS and name not in HELPER_USERS.get(rel, set()):
                bad.append(f"{where}: {name}() outside the parser")
            if name in SPLITS and receiver is not None and _speclike(receiver) and not edge:
                bad.append(f"{where}: {ast.unparse(node)} splits a spec")
        text = node.value if isinstance(node, ast.Constant) else None
        if isinstance(text, str) and text in PREFIXES and id(node) not in in_fstring:
            bad.append(f"{where}: spec prefix {text!r} outside the parser")
        is_in = isinstance(node, ast.Compare) and isinstance(node.ops[0], (ast.In, ast.NotIn))
        colon = is_in and getattr(node.left, "value", None) == ":"
        if colon and not edge and any(_speclike(c) for c in node.comparators):
            bad.append(f"{where}: {ast.unparse(node)} sniffs a spec")
    return bad


def test_no_module_below_the_edge_parses_a_spec_string():
    bad = [v for rel, tree in _modules().items() for v in _violations(rel, tree)]
    assert bad == []


@pytest.mark.parametrize(
    ("source", "found", "edge_may"),
    [
        ('def f(spec):\n    return spec.partition(":")[0]\n', "splits a spec", True),
        ('def f(teacher):\n    return ":" in teacher\n', "sniffs a spec", True),
        ('def f(x):\n    return x.startswith(("hf:", "st:"))\n', "spec prefix 'hf:'", False),
        ("def f(s):\n    return EncoderSpec.parse(s)\n", "parse() below the edge", True),
        ("def f(s):\n    return default_name(s)\n", "default_name() outside the parser", False),
    ],
)
def test_the_check_finds_each_kind_of_parsing(source, found, edge_may):
    """The check is not blind: each kind of spec parsing, put in a library module, is found;
    an edge may parse (with the parser), never sniff a prefix or call its helpers."""
    bad = _violations("probe/example.py", ast.parse(source))
    assert any(found in v for v in bad), bad
    assert (_violations("commands/example.py", ast.parse(source)) == []) is edge_may
