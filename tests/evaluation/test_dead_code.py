"""Every top-level function and class of ``surrogate.evaluation`` is used by the package.

Uses are read with ``ast`` over the package source (``surrogate/``, ``fem/``, ``datasets/``,
``cli/``; tests do not count): a name is used when some module loads it, imports it or reads
it as an attribute, outside its own definition. Strings (``__all__``) do not count.
"""

from __future__ import annotations

import ast
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SOURCES = ("surrogate", "fem", "datasets", "cli")


def _uses(tree: ast.AST) -> Counter[str]:
    """How often each identifier is loaded, imported or read as an attribute in ``tree``."""
    names: Counter[str] = Counter()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name):
            names[node.id] += 1
        elif isinstance(node, ast.Attribute):
            names[node.attr] += 1
        elif isinstance(node, ast.ImportFrom):
            names.update(alias.name for alias in node.names)
    return names


def unused_definitions(root: Path = ROOT) -> list[str]:
    """``"module.py: name"`` for each top-level def/class in ``surrogate/evaluation`` that no
    package module uses."""
    uses: Counter[str] = Counter()
    for folder in SOURCES:
        for path in (root / folder).rglob("*.py"):
            uses.update(_uses(ast.parse(path.read_text(encoding="utf-8"))))
    unused = []
    for path in sorted((root / "surrogate" / "evaluation").rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in tree.body:
            if isinstance(node, (ast.FunctionDef, ast.ClassDef)) and not node.name.startswith("__"):
                if uses[node.name] == 0:
                    unused.append(f"{path.relative_to(root).as_posix()}: {node.name}")
    return unused


def test_every_evaluation_definition_is_used():
    assert unused_definitions() == []


def test_an_unused_function_is_found(tmp_path):
    evaluation = tmp_path / "surrogate" / "evaluation"
    evaluation.mkdir(parents=True)
    (evaluation / "a.py").write_text("def used():\n    return 1\n\n\ndef _orphan():\n"
                                     "    return used()\n")
    (tmp_path / "cli").mkdir()
    (tmp_path / "cli" / "b.py").write_text("from surrogate.evaluation.a import used\n")
    assert unused_definitions(tmp_path) == ["surrogate/evaluation/a.py: _orphan"]
