"""Exception types shared by every part of the package (no dependencies).

The command line turns a :class:`SurrogateError` into one line on stderr and
exit code 2; anything else is an internal error and keeps its traceback.
"""


class SurrogateError(Exception):
    """Base class of every error the toolkit raises on purpose."""


class InputError(SurrogateError, ValueError):
    """Bad user input: unknown name, wrong shape, out-of-range value, NaN."""


class DataFormatError(SurrogateError):
    """A file (dataset, run directory) is missing, corrupt, or of the wrong format."""


class SolverError(SurrogateError, RuntimeError):
    """A numerical solve failed: no convergence, singular or ill-conditioned system."""


__all__ = ["SurrogateError", "InputError", "DataFormatError", "SolverError"]
