"""The package layout: a light front door, few top-level modules, no import cycle, a registry that
never names the agent, and pages that import only gpusched (the layers themselves are checked by
``lint-imports`` with the contracts in pyproject.toml)."""

from __future__ import annotations

import ast
import subprocess
import sys
from importlib.metadata import entry_points
from pathlib import Path

import grimp

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "gpusched"
HEAVY = ("torch", "numba", "streamlit", "ray")


def test_import_gpusched_is_light():
    code = ("import sys, gpusched; "
            f"print(','.join(m for m in {HEAVY!r} if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "", f"import gpusched imported {out.stdout.strip()}"


def test_import_gpusched_registers_the_env_for_gymnasium_make():
    """The usual idiom, in a fresh interpreter: ``import gpusched`` (light), then ``gymnasium.make``."""
    code = ("import sys, gpusched, gymnasium\n"
            f"heavy = [m for m in {HEAVY!r} if m in sys.modules]\n"
            "env = gymnasium.make('gpusched/GPUScheduler-v0', scenario='ll-stall-mini')\n"
            "obs, _ = env.reset(seed=0)\n"
            "gpusched._register_env()  # a second registration is a no-op\n"
            "print(heavy, type(env.unwrapped).__name__, sorted(obs), gpusched.ENV_ID)")
    out = subprocess.run([sys.executable, "-W", "error::UserWarning", "-c", code], capture_output=True,
                         text=True, check=True)
    heavy, name, rest = out.stdout.split(" ", 2)
    assert heavy == "[]" and name == "GPUSchedulerEnv", out.stdout
    assert "gpus" in rest and rest.strip().endswith("gpusched/GPUScheduler-v0")


def test_the_top_level_holds_at_most_five_modules():
    modules = sorted(p.name for p in PACKAGE.glob("*.py"))
    assert len(modules) <= 5, modules


def _strongly_connected(graph: dict[str, set[str]]) -> list[set[str]]:
    """Tarjan's algorithm, iterative."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    out: list[set[str]] = []
    counter = 0
    for start in graph:
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = counter
        counter += 1
        stack.append(start)
        on_stack.add(start)
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
                component = set()
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.add(member)
                    if member == node:
                        break
                out.append(component)
    return out


def test_no_import_cycle_between_modules():
    g = grimp.build_graph("gpusched", cache_dir=None, exclude_type_checking_imports=True)  # as lint-imports
    modules = {m for m in g.modules if m not in ("gpusched", "gpusched.__main__")}
    graph = {m: {d for d in g.find_modules_directly_imported_by(m) if d in modules} for m in modules}
    cycles = [sorted(c) for c in _strongly_connected(graph) if len(c) > 1]
    assert not cycles, cycles


def test_the_agent_reaches_the_registry_through_its_entry_point():
    from gpusched.policies import policy_info

    points = {p.name: p.value for p in entry_points(group="gpusched.policies")}
    assert points.get("agent") == "gpusched.agent.plugin:register_policies"
    registry = (PACKAGE / "policies" / "registry.py").read_text(encoding="utf-8")
    assert "gpusched.agent" not in registry
    assert policy_info("ppo").slow and policy_info("ppo_rollout").label == "PPO agent + rollouts"
    assert policy_info("ppo:models/x.zip").name == "ppo"


def _imported_roots(path: Path) -> set[str]:
    roots = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            roots |= {a.name.split(".")[0] for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            roots.add(node.module.split(".")[0])
    return roots


def test_pages_import_only_gpusched_and_the_ui_libraries():
    allowed = {"gpusched", "streamlit", "plotly", "pandas", "shared", "__future__"}
    for path in sorted((ROOT / "app").rglob("*.py")):
        extra = {m for m in _imported_roots(path) - allowed if m not in sys.stdlib_module_names}
        assert not extra, f"{path.relative_to(ROOT)} imports {sorted(extra)}"


def test_nothing_in_the_package_imports_the_app_or_the_tests():
    for path in sorted(PACKAGE.rglob("*.py")):
        roots = _imported_roots(path)
        assert not roots & {"app", "shared", "tests"}, path.relative_to(ROOT)
