"""Dependencies go one way (docs/architecture.md, "Layers"): a module imports only its own layer or
lower ones, the feature packages of one layer do not import each other, and there is no import
cycle. Read from the source (every import, function-level ones too), as test_lint runs pyflakes."""
import ast
from collections import defaultdict

from tests.conftest import ROOT

PKG = ROOT / "lsp_server"
LAYERS = [
    {"lsp_server", "errors", "protocol", "progress", "stats", "secrets", "files", "text"},  # foundation: text, paths, errors
    {"model_store", "syntax", "config", "batch"},
    {"inference"},
    {"completion", "retrieval", "apply", "next_edit"},  # features: independent of each other
    {"planner"},
    {"planning"},
    {"server", "plan_command", "documents", "jsonrpc", "cli", "cli_plan", "cli_next_edit", "__main__"},  # adapters
]
FEATURES = LAYERS[3]


def unit(module: str) -> str:
    """lsp_server.apply.change → apply; lsp_server → lsp_server."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else parts[0]


def layer(name: str) -> int:
    for n, names in enumerate(LAYERS):
        if name in names:
            return n
    raise AssertionError(f"{name} is in no layer: add it to LAYERS (and to docs/architecture.md)")


def imports() -> dict[str, set[str]]:
    """module → the lsp_server modules it imports."""
    out: dict[str, set[str]] = defaultdict(set)
    for path in sorted(PKG.rglob("*.py")):
        module = ".".join(path.relative_to(ROOT).with_suffix("").parts).removesuffix(".__init__")
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("lsp_server"):
                names = [node.module] + [f"{node.module}.{a.name}" for a in node.names]
                out[module].add(next((n for n in names[1:] if (ROOT / (n.replace(".", "/") + ".py")).exists()),
                                     node.module))
            elif isinstance(node, ast.Import):
                out[module].update(a.name for a in node.names if a.name.startswith("lsp_server"))
    return out


def test_imports_go_down_the_layers():
    wrong = []
    for module, targets in imports().items():
        for target in targets:
            a, b = unit(module), unit(target)
            if a == b:
                continue
            if layer(b) > layer(a):
                wrong.append(f"{module} (layer {layer(a)}) imports {target} (layer {layer(b)})")
            elif a in FEATURES and b in FEATURES:
                wrong.append(f"{module} imports {target}: features stay independent (share through a lower layer)")
    assert wrong == [], "\n".join(sorted(wrong))


def test_there_is_no_import_cycle():
    graph = imports()
    state: dict[str, int] = {}
    cycles = []

    def visit(node: str, path: list[str]) -> None:
        state[node] = 1
        for nxt in graph.get(node, ()):
            if state.get(nxt) == 1:
                cycles.append(" → ".join(path[path.index(nxt):] + [nxt]) if nxt in path else f"{node} → {nxt}")
            elif nxt not in state:
                visit(nxt, path + [nxt])
        state[node] = 2

    for start in sorted(graph):
        if start not in state:
            visit(start, [start])
    # a package's __init__ re-exporting its own modules is not a cycle between units
    cycles = [c for c in cycles if len({unit(m.strip()) for m in c.split("→")}) > 1]
    assert cycles == [], "\n".join(cycles)
