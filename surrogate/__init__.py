"""surrogate: neural-network surrogates of PDE solutions, held against finite elements.

The import package has four parts: ``surrogate.fem`` (finite elements),
``surrogate.datasets`` (HDF5 datasets), ``surrogate`` itself (models, training,
evaluation; needs torch) and ``surrogate.cli`` (the command line). Importing
``surrogate`` alone is cheap: torch is loaded only by the modules that need it.
"""

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("surrogate")
except PackageNotFoundError:  # running from a source tree that was never installed
    __version__ = "0.0.0+unknown"

__all__ = ["__version__"]
