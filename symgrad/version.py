"""symgrad's version, read from the installed package's metadata (one source:
``pyproject.toml``'s ``version``; nothing else keeps a copy)."""
from __future__ import annotations

from importlib import metadata

try:
    __version__: str = metadata.version("symgrad")
except metadata.PackageNotFoundError:   # a source tree that was never installed
    __version__ = "0+unknown"
