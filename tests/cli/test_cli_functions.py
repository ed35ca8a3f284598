"""Small functions in cli/: none over 80 lines or with more than 12 parameters (the options of
the big commands are generated from the configs, not written into their signatures)."""

import ast
from pathlib import Path

CLI = Path(__file__).resolve().parents[2] / "cli"
MAX_LINES, MAX_PARAMETERS = 80, 12


def _functions():
    for path in sorted(CLI.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                yield path.relative_to(CLI.parent), node


def _parameters(node: ast.FunctionDef) -> int:
    args = node.args
    return (len(args.posonlyargs) + len(args.args) + len(args.kwonlyargs)
            + (args.vararg is not None) + (args.kwarg is not None))


def test_no_function_in_cli_is_over_80_lines_or_12_parameters():
    big = [f"{path}:{node.lineno} {node.name}: {node.end_lineno - node.lineno + 1} lines, "
           f"{_parameters(node)} parameters" for path, node in _functions()
           if node.end_lineno - node.lineno + 1 > MAX_LINES or _parameters(node) > MAX_PARAMETERS]
    assert not big, "\n".join(big)


def test_the_check_sees_the_commands():
    names = {node.name for _, node in _functions()}
    assert {"fit", "evaluate", "gen_maxwell_td", "gen_maxwell_family"} <= names
