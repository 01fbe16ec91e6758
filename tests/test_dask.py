"""Dask: ``f.batched`` on dask arrays (lazy, chunked) and a dask.distributed cluster of two
worker processes evaluating a pickled evaluator; the oracle is ``f.batched`` on numpy."""
import pickle

import dask
import dask.array as da
import numpy as np
import pytest
from distributed import Client, LocalCluster, get_task_stream

import symgrad as sg


@pytest.fixture(scope="module")
def rosen_c():
    """Rosenbrock of x (2,) times a scalar c: array and 0-d inputs, a None output."""
    with sg.Graph().as_default():
        x = sg.placeholder(shape=(2,), name="x")
        c = sg.placeholder(name="c")
        y = c * sg.reduce_sum(100 * (x[1:] - x[:-1] ** 2) ** 2 + (1 - x[:-1]) ** 2)
        return sg.compile([y, sg.gradients(y, [x, c]), None], [x, c])


def _close(got, want):
    np.testing.assert_allclose(got[0], want[0], rtol=1e-13)
    for g, w in zip(got[1], want[1]):
        np.testing.assert_allclose(g, w, rtol=1e-13)
    assert got[2] is None and want[2] is None


def test_batched_on_dask_arrays_is_lazy_and_chunked(rosen_c):
    pts = np.random.default_rng(0).normal(size=(1000, 2))
    cs = np.linspace(0.5, 2.0, 1000)
    lazy = rosen_c.batched(da.from_array(pts, chunks=(300, 1)), da.from_array(cs, chunks=250))
    value, (gx, gc), none = lazy
    assert isinstance(value, da.Array) and isinstance(gx, da.Array) and none is None
    assert gx.shape == (1000, 2) and value.shape == (1000,)
    assert len(value.chunks[0]) > 1                       # still chunked over the batch
    with dask.config.set(scheduler="threads"):
        value, grads = dask.compute(value, [gx, gc])
    _close((value, grads, None), rosen_c.batched(pts, cs))
    with pytest.raises(sg.ShapeError, match="must end in shape"):
        rosen_c.batched(da.ones((10, 3)), 1.0)
    with pytest.raises(sg.ArgumentError, match="input 0 \\('x'\\) must be real numbers"):
        rosen_c.batched(da.ones((10, 2), dtype=complex), 1.0)


@pytest.fixture(scope="module")
def client():
    """One cluster for the module: two worker processes, one thread each."""
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                      dashboard_address=None) as cluster, Client(cluster) as c:
        c.wait_for_workers(2)
        yield c


def test_distributed_workers_evaluate_a_pickled_evaluator(rosen_c, client):
    f = pickle.loads(pickle.dumps(rosen_c))
    n = 200_000
    pts = da.random.default_rng(1).normal(size=(n, 2), chunks=(n // 8, 2))
    with get_task_stream(client) as tasks:
        value, (gx, gc), _ = f.batched(pts, 1.5)
        value, gx, gc, local = client.compute([value, gx, gc, pts], sync=True)
    _close((value, (gx, gc), None), rosen_c.batched(local, 1.5))
    workers = {t["worker"] for t in tasks.data}
    assert len(workers) == 2, workers          # both processes evaluated chunks
    # unpickling the evaluator on a worker is the light path (symgrad.shipping): no SymPy
    assert client.run(_imported, "sympy") == {w: False for w in workers}


def _imported(name):
    import sys
    return name in sys.modules
