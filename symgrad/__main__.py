"""``python -m symgrad``: the same command as ``symgrad``."""
import sys

from .cli import main

if __name__ == "__main__":
    sys.exit(main())
