"""README and docs/: size, no references outside the repository, files and anchors they link
exist, results pages stay short, and the README's Python example runs (at reduced size)."""

from __future__ import annotations

import re
import subprocess
import unicodedata
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
DOCS = sorted((ROOT / "docs").rglob("*.md"))
RESULTS = ROOT / "docs" / "results"
MAX_README_BYTES = 10_240
MAX_RESULTS_PAGE_LINES = 400
REPO_PATH = re.compile(r"(?<![\w/.-])((?:surrogate|fem|datasets|cli|tests|examples|benchmarks"
                       r"|docs)/[\w/.-]*\w\.(?:py|md|sh|toml))")
LINK = re.compile(r"\]\(([^)\s]+)\)")
FENCE = re.compile(r"^```.*?^```", re.S | re.M)


def _anchors(page: Path) -> set[str]:
    """The heading anchors GitHub gives a page: lower case, punctuation dropped, spaces to
    hyphens, repeats numbered -1, -2, ... (headings inside fenced code blocks are none)."""
    seen: dict[str, int] = {}
    anchors = set()
    for line in FENCE.sub("", page.read_text(encoding="utf-8")).splitlines():
        heading = re.match(r"#{1,6} (.+)", line)
        if not heading:
            continue
        slug = "".join(ch for ch in heading.group(1).strip().lower()
                       if ch.isalnum() or ch in "_- " or unicodedata.category(ch)[0] == "M")
        slug = slug.replace(" ", "-")
        anchors.add(f"{slug}-{seen[slug]}" if slug in seen else slug)
        seen[slug] = seen.get(slug, 0) + 1
    return anchors


def test_readme_is_at_most_10_kb():
    assert README.stat().st_size <= MAX_README_BYTES, f"README.md {README.stat().st_size} bytes"


@pytest.mark.parametrize("page", [README, *DOCS], ids=lambda p: p.relative_to(ROOT).as_posix())
def test_page_names_only_files_of_the_repository(page):
    text = page.read_text(encoding="utf-8")
    missing = sorted({p for p in REPO_PATH.findall(text) if not (ROOT / p).exists()})
    assert not missing, f"{page.name} names missing files: {missing}"
    for target in LINK.findall(FENCE.sub("", text)):
        if target.startswith(("http://", "https://")):
            continue
        path, _, anchor = target.partition("#")
        resolved = (page.parent / path).resolve() if path else page
        assert resolved.is_relative_to(ROOT), f"{page.name} links outside the repo: {target}"
        assert resolved.exists(), f"{page.name} links a missing file: {target}"
        if anchor and resolved.suffix == ".md":
            assert anchor in _anchors(resolved), f"{page.name} links a missing anchor: {target}"
    assert not re.search(r"\bissues? \d", text, re.I), f"{page.name} speaks of issue numbers"


def test_docs_hold_what_the_readme_points_to():
    names = {p.relative_to(ROOT / "docs").as_posix() for p in DOCS}
    assert {"cli.md", "results/index.md", "reliability.md", "architecture.md",
            "extending.md"} <= names
    assert "results.md" not in names, "the results live in docs/results/, one page a topic"
    architecture = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    for equation, path in (("eq. 5.2", "surrogate/models/resnet.py"),
                           ("eq. 2.5", "surrogate/training/penalties.py"),
                           ("eq. 7.2", "fem/problems.py")):
        row = next(line for line in architecture.splitlines() if line.startswith(f"| {equation}"))
        assert path in row


def test_results_are_an_index_and_short_pages_with_current_figures_first():
    pages = sorted(p for p in RESULTS.glob("*.md") if p.name != "index.md")
    index_links = {t.partition("#")[0] for t in LINK.findall((RESULTS / "index.md").read_text(
        encoding="utf-8"))}
    readme_links = {t.partition("#")[0] for t in LINK.findall(README.read_text(encoding="utf-8"))}
    assert "docs/results/index.md" in readme_links
    assert len({t for t in readme_links if t.startswith("docs/results/")}) > 3, "README rows"
    for page in [RESULTS / "index.md", *pages]:
        lines = page.read_text(encoding="utf-8").splitlines()
        assert len(lines) <= MAX_RESULTS_PAGE_LINES, f"{page.name}: {len(lines)} lines"
    for page in pages:
        assert page.name in index_links, f"index.md does not link {page.name}"
        headings = [line for line in page.read_text(encoding="utf-8").splitlines()
                    if line.startswith("## ")]
        assert headings[0] == "## Current figures", f"{page.name} starts with {headings[0]}"
        assert headings[-1] == "## History", f"{page.name} ends with {headings[-1]}"


@pytest.mark.slow
def test_readme_python_example_runs(tmp_path, warm_commands):
    """The README's Python example, run by the warm interpreter (tests/warm_cli.py)."""
    text = README.read_text(encoding="utf-8")
    code = re.search(r"```python\n(.*?)```", text, re.S).group(1)
    reduced = {'n=12000': 'n=400', '"epochs": 4000': '"epochs": 3',
               "levels=(1, 2, 3, 4)": "levels=(1,)"}
    for full, small in reduced.items():
        assert full in code, f"README example changed; update this test ({full!r})"
        code = code.replace(full, small)
    proc = subprocess.run([warm_commands.python, "-c", code], cwd=tmp_path,
                          capture_output=True, text=True, timeout=300, check=False)
    assert proc.returncode == 0, proc.stderr[-3000:]
    lines = proc.stdout.split("\n")
    assert 0 < float(lines[0]) < 10  # relative L² test error of 3 epochs
    level, fem_error, nn_error = lines[1].split()
    assert level == "1" and float(fem_error) == pytest.approx(1.07e-2, rel=0.01)
    assert float(nn_error) > 0
    assert (tmp_path / "out" / "fdnn" / "index.html").is_file()
    assert (tmp_path / "out" / "fdnn" / "vtk" / "cube.pvd").is_file()
