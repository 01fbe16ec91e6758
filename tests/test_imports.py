"""The import direction of STYLE.md, checked with ast: no stage imports a later one."""
import ast
import pathlib

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent / "symgrad"
# Lower number = lower layer.  A module may import only its own layer or below:
# graph -> ops -> differentiate/evaluate (and the tracer) -> forms -> lower -> front ends.
LAYERS = {
    "errors": 0, "display": 0, "version": 0, "progress": 0, "gcfreeze": 0, "graph": 1, "dims": 1, "values": 1, "sparse_batch": 1,
    "ops": 2,
    "evaluate": 3, "differentiate": 3, "tracing": 3,
    "forward": 3, "seeds": 3, "patterns": 3, "seed_sets": 1, "coloring": 3, "frontier": 3,
    "forms": 4, "sparse": 4, "control": 4,
    "lower": 5, "compiler": 5, "evaluator": 5, "batch_calls": 5, "chunked": 5, "shipping": 5, "optimize": 6,
    "demo": 7, "teach": 7, "compat": 7, "parse": 7, "parse_tokens": 7, "guard": 8, "cli": 8, "__init__": 9,
    "__main__": 9, "_api": 9,
}


def _layer(module_path):
    parts = module_path.relative_to(ROOT).with_suffix("").parts
    return parts[0], LAYERS.get(parts[0])


def _imported(module_path, tree):
    """Top-level names (first part) of the symgrad modules ``tree`` imports."""
    for target in _imported_paths(module_path, tree):
        if target:
            yield target[0]


def _imported_paths(module_path, tree):
    """Dotted paths (inside symgrad, as part lists) of every import, lazy ones included."""
    package = module_path.relative_to(ROOT).with_suffix("").parts[:-1]
    if module_path.name == "__init__.py":
        package = module_path.relative_to(ROOT).parts[:-1]
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = list(package[:len(package) - node.level + 1])
                mod = node.module.split(".") if node.module else []
            elif node.module and node.module.split(".")[0] == "symgrad":
                base, mod = [], node.module.split(".")[1:]
            else:
                continue
            for a in node.names:   # `from . import x` may name a module or an attribute
                yield base + mod + ([a.name] if a.name != "*" else [])
        elif isinstance(node, ast.Import):
            for a in node.names:
                if a.name.startswith("symgrad."):
                    yield a.name.split(".")[1:]


MODULES = sorted(p for p in ROOT.rglob("*.py"))


def test_every_top_level_module_has_a_layer():
    missing = {_layer(p)[0] for p in MODULES if _layer(p)[1] is None}
    assert missing == set()


@pytest.mark.parametrize("path", MODULES, ids=lambda p: str(p.relative_to(ROOT)))
def test_imports_point_down(path):
    name, layer = _layer(path)
    if name == "__init__":
        return
    for target in _imported(path, ast.parse(path.read_text())):
        target_layer = LAYERS.get(target)
        assert target_layer is not None and target_layer <= layer, \
            f"{path.relative_to(ROOT)} (layer {layer}) imports {target} (layer {target_layer})"


def _module_name(path):
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _import_graph():
    """module -> modules it imports (resolved to existing modules, lazy imports too)."""
    names = {_module_name(p) for p in MODULES}
    edges = {}
    for path in MODULES:
        src = _module_name(path)
        edges[src] = set()
        for target in _imported_paths(path, ast.parse(path.read_text())):
            while target and ".".join(target) not in names:
                target = target[:-1]   # an attribute of a module, not a module
            if target and ".".join(target) != src:
                edges[src].add(".".join(target))
    return edges


def _packages_of(name):
    parts = name.split(".")
    return {".".join(parts[:i]) for i in range(1, len(parts))}


def test_no_import_cycles():
    """No module reaches itself through imports (a package's own __init__ excepted)."""
    edges = _import_graph()
    for start in edges:
        seen, stack = set(), [(start, (start,))]
        while stack:
            name, path = stack.pop()
            for nxt in edges.get(name, ()):
                if nxt == start and start not in _packages_of(name):
                    raise AssertionError("import cycle: " + " -> ".join(path + (nxt,)))
                if nxt not in seen and nxt not in _packages_of(start):
                    seen.add(nxt)
                    stack.append((nxt, path + (nxt,)))


def test_tracer_and_sweep_import_no_printer():
    """Display is the printers' business, reached through the tensor's own _repr_*."""
    edges = _import_graph()
    for src, targets in edges.items():
        if src.startswith(("tracing", "differentiate")):
            assert not [t for t in targets if t.startswith("forms")], (src, targets)
