"""Shared fixtures: every test gets a fresh default graph."""
import numpy as np
import pytest

import symgrad as sg


@pytest.fixture(autouse=True)
def fresh_graph():
    with sg.Graph().as_default() as g:
        yield g


@pytest.fixture
def rng():
    return np.random.default_rng(1234)
