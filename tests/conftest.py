"""Shared fixtures: every test gets a fresh default graph."""
import numpy as np
import pytest

import symgrad as sg

# tests/data holds files the tests read, among them the script that wrote the TF
# checkpoints with TensorFlow (run by hand with TF installed): not tests, not imported
collect_ignore_glob = ["data/*"]


@pytest.fixture(autouse=True)
def fresh_graph():
    with sg.Graph().as_default() as g:
        yield g


@pytest.fixture
def rng():
    return np.random.default_rng(1234)


# Property-test profiles: "ci" (default, bounded time) and "long" (run locally:
# python -m pytest tests/test_properties.py --hypothesis-profile=long).
from hypothesis import HealthCheck, settings  # noqa: E402

settings.register_profile("ci", max_examples=30, deadline=None, derandomize=True,
                          suppress_health_check=[HealthCheck.too_slow,
                                                 HealthCheck.filter_too_much,
                                                 HealthCheck.data_too_large])
settings.register_profile("long", max_examples=1500, deadline=None,
                          suppress_health_check=[HealthCheck.too_slow,
                                                 HealthCheck.filter_too_much,
                                                 HealthCheck.data_too_large])
settings.load_profile("ci")


@pytest.fixture(autouse=True, scope="session")
def compile_cache_dir(tmp_path_factory):
    """Compiled modules of the test session go to a temporary cache, not the user's."""
    mp = pytest.MonkeyPatch()
    mp.setenv("SYMGRAD_CACHE_DIR", str(tmp_path_factory.mktemp("symgrad_cache")))
    # sg.compile builds the machine code before returning, so tests of compiled code
    # test the machine code; tests/test_compile_background.py tests the cheap tier
    # and the background build (wait=False) on their own
    mp.setenv("SYMGRAD_WAIT", "1")
    yield
    mp.undo()
