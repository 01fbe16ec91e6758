"""Scaling of the core: tracing and differentiating 1,000- and 10,000-node chains.

``python -m benchmarks.scaling`` prints one JSON line per size.  The chain is the
benchmark's f_k = sin(f_{k-1}) * f_{k-1} + x_k over a vector x (an index node, a
sin, a mul and an add per step, so about 4 nodes a step).  Every pass in the core
walks nodes iteratively; Python's default recursion limit is left as it is, so a
recursive pass would fail here with RecursionError.
"""
import json
import sys
import time

SIZES = (1000, 10000)


def measure(nodes):
    import symgrad as sg
    steps = max(2, nodes // 4)
    with sg.Graph().as_default() as graph:
        t0 = time.perf_counter()
        x = sg.placeholder(shape=(steps,), name="x")
        f = x[0]
        for k in range(1, steps):
            f = sg.sin(f) * f + x[k]
        traced = time.perf_counter() - t0
        forward_nodes = len(graph)
        t0 = time.perf_counter()
        try:
            (grad,) = sg.gradients(f, x)
            error = None
        except RecursionError as exc:
            grad, error = None, f"RecursionError: {exc}"
        differentiated = time.perf_counter() - t0
        return {"nodes": forward_nodes, "steps": steps, "trace": traced,
                "gradients": differentiated, "gradient_nodes": len(graph) - forward_nodes,
                "recursion_limit": sys.getrecursionlimit(), "error": error}


def main():
    for nodes in SIZES:
        print(json.dumps(measure(nodes)), flush=True)


if __name__ == "__main__":
    main()
