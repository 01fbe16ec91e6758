"""symgrad's benchmarks: ``python -m benchmarks.run [--quick]`` (see run.py).

Not part of the test suite; each measurement runs in its own process.
"""
