"""Throughput of one compiled evaluator over many points: one process vs a dask cluster.

``python -m benchmarks.dask_cluster [--points 10000000] [--workload rosen2]`` from the
repository root.  The same evaluator (value and gradient of a workload) runs over the
same number of points

- in this process: ``f.batched(points)`` serial, and ``parallel=True`` (threads);
- on a ``dask.distributed.LocalCluster`` of two worker processes (one thread each):
  the pickled evaluator maps over a chunked dask array whose chunks live on the
  workers; results are kept there (``persist``), so the figure is evaluation, not the
  transfer of 10^7 gradients back to the client.

The workers' first run (unpickling, compiling or loading the gufunc) is a warm-up
and not timed.  Figures are medians of ``--repeats`` runs, in points per second.
"""
from __future__ import annotations

import argparse
import os
import pickle
import statistics
import time

import numpy as np

from .timing import median_seconds


def build(name):
    import symgrad as sg
    from benchmarks import workloads
    w = workloads.get(name)
    with sg.Graph().as_default():
        x = sg.placeholder(shape=(w.n,), name="x")
        loss = workloads.symgrad_loss(w, sg, x)
        return sg.compile([loss, sg.gradients(loss, x)[0]], [x], wait=True), w.n


def one_process(f, n, points, repeats):
    pts = np.random.default_rng(0).normal(size=(points, n))
    f.batched(pts[:1000])
    serial = median_seconds(lambda: f.batched(pts), repeats)
    threads = median_seconds(lambda: f.batched(pts, parallel=True), repeats)
    return points / serial, points / threads


def cluster(f, n, points, chunk, repeats):
    import dask.array as da
    from distributed import Client, LocalCluster, wait
    f = pickle.loads(pickle.dumps(f))
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                      dashboard_address=None) as lc, Client(lc) as client:
        client.wait_for_workers(2)
        # a fresh array per run: the same graph twice would find its results in memory
        arrays = [da.random.default_rng(seed).normal(size=(points, n), chunks=(chunk, n))
                  for seed in range(repeats + 1)]
        arrays = client.persist(arrays)
        wait(arrays)
        times = []
        for k, arr in enumerate(arrays):
            start = time.perf_counter()
            out = client.persist(list(f.batched(arr)))
            wait(out)
            if k:                              # run 0 is the warm-up: workers build f
                times.append(time.perf_counter() - start)
            del out
        return points / statistics.median(times)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--points", type=int, default=10_000_000)
    p.add_argument("--chunk", type=int, default=500_000)
    p.add_argument("--workload", default="rosen2")
    p.add_argument("--repeats", type=int, default=5)
    args = p.parse_args(argv)
    f, n = build(args.workload)
    serial, threads = one_process(f, n, args.points, args.repeats)
    distributed = cluster(f, n, args.points, args.chunk, args.repeats)
    print(f"{args.workload}, {args.points:.0e} points, chunks of {args.chunk}, "
          f"{os.cpu_count()} cores, load average {os.getloadavg()[0]:.2f}")
    print("| evaluation | points/s | x one process serial |\n|---|---|---|")
    for label, rate in [("one process, serial", serial),
                        ("one process, parallel=True (threads)", threads),
                        ("dask LocalCluster, 2 worker processes", distributed)]:
        print(f"| {label} | {rate:.3g} | {rate / serial:.2f} |")


if __name__ == "__main__":
    main()
