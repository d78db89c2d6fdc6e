"""No import cycles between the project's modules (everything under leaderboard/), counting
imports inside functions: a cycle hidden in a function is still one."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("leaderboard",)


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def project_modules() -> dict[str, Path]:
    return {module_name(p): p for package in PACKAGES for p in (ROOT / package).rglob("*.py")}


def imports_of(name: str, path: Path, modules: dict[str, Path]) -> set[str]:
    """The project modules ``path`` imports anywhere in it: ``from a.b import c`` counts as
    ``a.b.c`` when that is a module, else ``a.b``; the parent packages an import runs
    implicitly are not counted (every module would then be in a cycle with
    ``leaderboard/__init__``)."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")
                anchor = anchor[:len(anchor) - node.level + 1]
                base = ".".join([*anchor, base] if base else anchor)
            for alias in node.names:
                sub = f"{base}.{alias.name}"
                found.add(sub if sub in modules else base)
    return {m for m in found if m in modules and m != name}


def import_graph() -> dict[str, set[str]]:
    modules = project_modules()
    return {name: imports_of(name, path, modules) for name, path in modules.items()}


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    out: list[list[str]] = []
    counter = 0
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    out.append(sorted(component))
    return out


def test_the_cycle_finder_finds_a_cycle_through_a_function_body(tmp_path):
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}, "e": set()}
    assert cycles(graph) == [["a", "b", "c"]]
    assert cycles({"a": {"b"}, "b": set()}) == []


def test_imports_inside_functions_count():
    modules = project_modules()
    edges = imports_of("leaderboard.infra.queue", modules["leaderboard.infra.queue"], modules)
    # ``from leaderboard.ranker.placement import ...`` at the top; flask's current_app is not ours
    assert "leaderboard.ranker.placement" in edges and "leaderboard.infra.redis_conn" in edges
    refresh = "leaderboard.ranker.refresh"
    runner = imports_of(refresh, modules[refresh], modules)
    assert "leaderboard.worker.jobs" in runner  # imported inside refresh_snapshot_job


def test_no_import_cycles_between_modules():
    """None at all, the blueprint packages included: each defines its ``bp`` in a
    ``blueprint`` module that its route modules import, and the package imports those to
    register them (Flask's usual layout, ``bp`` in ``__init__``, was a cycle by
    construction)."""
    found = cycles(import_graph())
    assert found == [], "import cycles:\n" + "\n".join(" <-> ".join(c) for c in found)


def test_route_modules_take_bp_from_the_blueprint_module():
    modules = project_modules()
    for package in ("leaderboard.web.account", "leaderboard.web.api",
                    "leaderboard.web.public"):
        members = [m for m in modules if m.startswith(package + ".")]
        assert package + ".blueprint" in members
        for module in members:
            assert package not in imports_of(module, modules[module], modules), module


def test_service_packages_are_layered():
    """catalog imports no other service package; ranking only catalog (a board's catalog
    asks for a refresh, it never computes one)."""
    def package(module: str) -> str | None:
        parts = module.split(".")
        return ".".join(parts[:3]) if module.startswith("leaderboard.services.") \
            and len(parts) > 3 else None

    uses: dict[str, set[str]] = {}
    for module, imported in import_graph().items():
        if (mine := package(module)) is not None:
            uses.setdefault(mine, set()).update(
                p for m in imported if (p := package(m)) is not None and p != mine)
    assert uses["leaderboard.services.catalog"] == set()
    assert uses["leaderboard.services.ranking"] == {"leaderboard.services.catalog"}
    assert cycles({p: uses.get(p, set()) for p in uses}) == []
