"""The installed package's version, written into every dataset file and run directory."""

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("surrogate")
except PackageNotFoundError:  # running from a source tree that was never installed
    __version__ = "0.0.0+unknown"
