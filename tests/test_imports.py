"""The import direction of STYLE.md, checked with ast: no stage imports a later one."""
import ast
import pathlib

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent / "symgrad"
# Lower number = lower layer.  A module may import only its own layer or below.
LAYERS = {
    "errors": 0, "graph": 1, "ops": 2,
    "evaluate": 3, "symbolic": 3, "simplify": 3, "printing": 3, "notation": 3, "cseprint": 3,
    "matrixalgebra": 3, "matrixform": 3,
    "tracing": 4, "differentiate": 5,
    "lower": 6, "compiler": 6, "optimize": 7,
    "demo": 8, "teach": 8, "compat": 8, "parse": 8, "cli": 9, "__init__": 10,
}


def _layer(module_path):
    parts = module_path.relative_to(ROOT).with_suffix("").parts
    return parts[0], LAYERS.get(parts[0])


def _imported(module_path, tree):
    package = module_path.relative_to(ROOT).with_suffix("").parts[:-1]
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[:len(package) - node.level + 1]
                target = list(base) + (node.module.split(".") if node.module else [])
                if not target:
                    target = [a.name for a in node.names]
                yield target[0]
            elif node.module and node.module.split(".")[0] == "symgrad":
                rest = node.module.split(".")[1:] or [a.name for a in node.names]
                yield rest[0]
        elif isinstance(node, ast.Import):
            for a in node.names:
                if a.name.startswith("symgrad."):
                    yield a.name.split(".")[1]


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
