"""The package's import graph: no cycles, leaf modules stay leaves, the CLI starts light.

The graph is read from the source with ``ast``: every ``import`` of an abstain
module counts, including imports inside functions (lazy ones) and imports under
``if TYPE_CHECKING:`` (a type-only import still ties two layers together: see the
"Layers" of docs/ARCHITECTURE.md). An edge goes to the module named, not to its
parent packages.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import abstain

PACKAGE = Path(abstain.__file__).parent


def _modules() -> dict[str, Path]:
    found: dict[str, Path] = {}
    for path in PACKAGE.rglob("*.py"):
        parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        found[".".join(parts)] = path
    return found


MODULES = _modules()


def _resolve(name: str) -> str:
    while name not in MODULES:
        name = name.rsplit(".", 1)[0]
    return name


def _imports(module: str) -> set[str]:
    path = MODULES[module]
    package = module.split(".") if path.name == "__init__.py" else module.split(".")[:-1]
    found: set[str] = set()

    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(_resolve(a.name) for a in node.names
                         if a.name.split(".")[0] == "abstain")
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                prefix = package[: len(package) - node.level + 1]
                base = ".".join([*prefix, *([node.module] if node.module else [])])
            if base.split(".")[0] == "abstain":
                for alias in node.names:
                    full = f"{base}.{alias.name}"
                    found.add(full if full in MODULES else _resolve(base))
    found.discard(module)
    return found


GRAPH = {module: _imports(module) for module in MODULES}
# The package's __getattr__ imports its public names' modules by name (importlib).
GRAPH["abstain"] |= set(abstain._LAZY.values())


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def connect(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                connect(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            connect(v)
    return found


def test_the_checker_sees_lazy_and_type_only_imports_and_cycles() -> None:
    assert "abstain.stores.sqlite" in GRAPH["abstain.stores"]  # imported inside open_store
    assert "abstain.records" in GRAPH["abstain.errors"]  # only under TYPE_CHECKING
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def test_no_import_cycles_type_only_imports_included() -> None:
    assert _cycles(GRAPH) == []


def test_leaf_modules_import_nothing_from_abstain() -> None:
    leaves = ["abstain.text.words", "abstain.records"]
    assert {leaf: GRAPH[leaf] for leaf in leaves} == {leaf: set() for leaf in leaves}
    assert GRAPH["abstain.errors"] == {"abstain.records"}  # LLMError carries LLMCall records
    assert GRAPH["abstain.config"] == {"abstain.errors"}  # settings may raise ConfigError


def test_the_reading_the_observer_and_the_answer_sit_below_what_uses_them() -> None:
    assert "abstain.gate" not in GRAPH["abstain.rerank.reading"]  # the gate decides to read
    assert "abstain.pipeline" not in GRAPH["abstain.observe"]  # observe takes values
    assert "abstain.trace" not in GRAPH["abstain.answer"]  # answer_of is the trace's


def test_cli_and_package_import_without_numpy() -> None:
    code = ("import sys, abstain, abstain.cli; "
            "print(sorted(m for m in ('numpy', 'onnxruntime', 'httpx') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True)
    assert out.stdout.strip() == "[]"


def test_importing_the_pipeline_reads_no_data_file() -> None:
    code = ("import importlib.resources as r; r.files = None; "
            "import abstain.pipeline; print('ok')")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert (out.returncode, out.stdout.strip()) == (0, "ok"), out.stderr


def test_every_abstain_module_a_module_imports_exists() -> None:
    """mypy is run with ``ignore_missing_imports`` (for untyped third-party packages), so it
    would not notice an import of an abstain module that was moved or removed: this does."""
    missing = []
    for name, path in MODULES.items():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            targets: list[str] = []
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                targets = [node.module]
            for target in targets:
                if target.split(".")[0] == "abstain" and target not in MODULES:
                    missing.append(f"{name} imports {target}")
    assert missing == []
