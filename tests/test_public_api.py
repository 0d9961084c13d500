"""``abstain.__all__``: every name resolves, and it matches what the docs use and list."""

from __future__ import annotations

import ast
import re
import subprocess
import sys
from pathlib import Path

import abstain

ROOT = Path(__file__).resolve().parent.parent
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]


def _python_blocks() -> list[tuple[str, str]]:
    blocks = []
    for path in DOCS:
        for block in re.findall(r"```python\n(.*?)```", path.read_text(encoding="utf-8"),
                                flags=re.S):
            blocks.append((path.name, block))
    return blocks


def _names_used(code: str) -> set[str]:
    """Names taken from the top-level package: ``from abstain import X`` and ``abstain.X``."""
    used: set[str] = set()
    for node in ast.walk(ast.parse(code)):
        if isinstance(node, ast.ImportFrom) and node.module == "abstain" and not node.level:
            used.update(alias.name for alias in node.names)
        elif (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name)
              and node.value.id == "abstain"):
            used.add(node.attr)
    return used


def test_every_public_name_resolves() -> None:
    for name in abstain.__all__:
        assert getattr(abstain, name) is not None, name
    assert set(abstain.__all__) <= set(dir(abstain))


def test_the_names_the_docs_use_are_public() -> None:
    used = {(doc, name) for doc, code in _python_blocks() for name in _names_used(code)}
    assert {name for _, name in used} >= {"ask", "Pipeline"}
    assert {(doc, name) for doc, name in used if name not in abstain.__all__} == set()


def test_the_docs_list_exactly_the_public_names() -> None:
    text = (ROOT / "docs" / "ARCHITECTURE.md").read_text(encoding="utf-8")
    section = text.split("## Public names", 1)[1]
    listed = set(re.findall(r"`(\w+)`", section.split("\n- ", 1)[1]))
    assert listed == set(abstain.__all__)


def test_unknown_names_raise_attribute_error() -> None:
    assert not hasattr(abstain, "no_such_name")


def test_import_abstain_is_light() -> None:
    code = ("import sys, abstain; "
            "print(sorted(m for m in sys.modules if m.startswith(('abstain.', 'numpy'))))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True)
    assert out.stdout.strip() == "['abstain.errors']"
