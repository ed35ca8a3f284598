"""A warm ``surrogate`` command (and ``python``) for tests that run many short programs.

A short ``surrogate fit`` spends ≈ 3 s of CPU before its first step: importing torch, the
torch._dynamo that torch's optimisers import on their first step, and the package; the work
itself is a fraction of a second at the examples' test sizes. The server below imports those
once, then forks one child per command. The child takes over the caller's argument list,
working folder, environment and standard streams (passed as file descriptors over a Unix
socket) and runs the console script's entry point, :func:`surrogate.cli.app.main`; the caller
(a tiny stdlib-only client that the scripts call as ``$SURROGATE``) exits with the child's exit
code.
The second client, ``python``, runs ``-c CODE`` or a script the same way in such a child
(the README's example, examples/pruning_demo.py).
A script therefore sees what the installed command gives it: the same code, arguments,
folders, files, output and exit codes. The console script's own start-up is tested where it
matters, by real processes (tests/cli/test_app.py, test_signals.py, test_thread_policy.py).

The server is single-threaded (it forks, so no other thread may hold a lock at that moment)
and runs no torch operation before forking: the children start with no thread pools. What a
runtime reads once when it loads (OpenMP's thread count and wait policy) comes from the
server's environment, so the server is started with the callers' thread variables; what
importing the package adds to the environment (``OMP_WAIT_POLICY``) is added to each child's
unless the caller sets it, as the installed command does.
"""

from __future__ import annotations

import importlib
import json
import os
import runpy
import select
import signal
import socket
import subprocess
import sys
import traceback
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import NamedTuple

_CLIENT = '''#!{python} -IS
"""Runs `{program}` in a child of the warm server at {socket} (tests/warm_cli.py)."""
import json, os, socket, sys
link = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
link.connect({socket!r})
request = {{"program": {program!r}, "argv": sys.argv[1:], "cwd": os.getcwd(),
           "env": dict(os.environ)}}
socket.send_fds(link, [json.dumps(request).encode()], [0, 1, 2])
answer = link.recv(64)
sys.exit(int(answer) if answer else 70)
'''


PRELOADED = (
    # The package first (it sets the wait policy before torch loads); torch._dynamo is what
    # torch's optimisers import on their first step.
    "surrogate.cli.app", "surrogate.training.loop", "torch._dynamo",
    # What the examples' commands import next (sys.modules at their exit, 54 commands): the
    # dataset reader's h5py and pydantic in 45 of them, scipy and skfem in 16, matplotlib in
    # the reports, the optional FEM and meshing extras where installed. None starts a thread.
    "pydantic", "h5py", "surrogate.datasets.reader", "surrogate.cli.resume_lookup",
    "surrogate.models.networks", "surrogate.models.sequence_models", "scipy.sparse.linalg",
    "skfem", "pyamg", "meshio", "surrogate.datasets.generators", "surrogate.fem.domains",
    "surrogate.evaluation.api", "ngsolve", "gmsh",
)
"""Modules the server imports before it forks; a child imports anything else itself."""


def _exit_code(status: int) -> int:
    """A child's wait status as a shell reports it (128 + n for a signal n)."""
    code = os.waitstatus_to_exitcode(status)
    return 128 - code if code < 0 else code


class WarmCommands(NamedTuple):
    """Clients of one warm server: the ``surrogate`` command, and ``python`` for a script or
    ``-c`` code (as the interpreter runs them, after the server's imports)."""

    surrogate: Path
    python: Path


def _run_python(argv: list[str]) -> None:
    """Run ``argv`` as ``python -c CODE [ARG ...]`` or ``python SCRIPT [ARG ...]`` does."""
    if argv[:1] == ["-c"] and len(argv) > 1:
        sys.argv = ["-c", *argv[2:]]
        sys.path.insert(0, "")
        exec(compile(argv[1], "<string>", "exec"), {"__name__": "__main__"})  # noqa: S102
    elif argv and not argv[0].startswith("-"):
        sys.argv = list(argv)
        sys.path.insert(0, os.path.dirname(os.path.abspath(argv[0])))
        runpy.run_path(argv[0], run_name="__main__")
    else:
        raise SystemExit(f"warm python runs `-c CODE` or a script, not {argv[:1]}")


def _run_child(request: dict, fds: list[int], entry_point: str, added: dict[str, str]) -> None:
    """In the forked child: become the caller's command, run it, exit."""
    for signum in (signal.SIGINT, signal.SIGTERM, signal.SIGCHLD):
        signal.signal(signum, signal.SIG_DFL)
    for target, fd in enumerate(fds):
        os.dup2(fd, target)
        os.close(fd)
    os.chdir(request["cwd"])
    os.environ.clear()
    os.environ.update({**added, **request["env"]})
    code = 0
    try:
        if request["program"] == "python":
            _run_python(request["argv"])
        else:
            from surrogate.cli.app import main

            sys.argv = [entry_point, *request["argv"]]
            main()
    except SystemExit as exc:  # as the interpreter maps SystemExit to an exit code
        if exc.code is None or isinstance(exc.code, int):
            code = exc.code or 0
        else:
            print(exc.code, file=sys.stderr)
            code = 1
    except BaseException:  # noqa: BLE001  (the interpreter's own last resort)
        traceback.print_exc()
        code = 1
    finally:
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except (OSError, ValueError):
                pass
    os._exit(code)


def serve(path: str, entry_point: str) -> None:
    """Import the heavy modules once; fork a child per request; answer each exit code."""
    before = dict(os.environ)
    for module in PRELOADED:
        try:
            importlib.import_module(module)
        except ImportError:
            pass  # an optional extra that is not installed: the commands see the same
    from surrogate.evaluation.figures import pyplot

    pyplot()  # matplotlib on the backend the commands select (Agg)
    status = Path("/proc/self/status")
    if status.exists() and "Threads:\t1\n" not in status.read_text():
        raise RuntimeError("a preloaded module started a thread: forking would be unsafe")

    added = {key: value for key, value in os.environ.items() if key not in before}

    listener = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    listener.bind(path)
    listener.listen(16)
    print("ready", flush=True)
    waiting: dict[int, socket.socket] = {}
    while True:
        readable, _, _ = select.select([listener], [], [], 0.02)
        if readable:
            link, _ = listener.accept()
            message, fds, _, _ = socket.recv_fds(link, 1 << 20, 3)
            pid = os.fork()
            if pid == 0:
                listener.close()
                link.close()
                _run_child(json.loads(message), fds, entry_point, added)
            for fd in fds:
                os.close(fd)
            waiting[pid] = link
        while waiting:
            pid, status = os.waitpid(-1, os.WNOHANG)
            if pid == 0:
                break
            link = waiting.pop(pid)
            try:
                link.send(str(_exit_code(status)).encode())
            except OSError:
                pass  # the caller is gone
            link.close()


@contextmanager
def warm_surrogate(folder: Path, entry_point: str, env: dict[str, str]) -> Iterator[WarmCommands]:
    """Start a warm server in ``folder`` with environment ``env`` (the callers' thread
    variables); yield its clients: one that acts as ``entry_point`` (the installed
    ``surrogate`` command) and one as ``python``; stop the server and any command still
    running afterwards."""
    path = str(folder / "warm.sock")
    server = subprocess.Popen([sys.executable, __file__, path, entry_point], env=env,
                              stdout=subprocess.PIPE, stdin=subprocess.DEVNULL, text=True,
                              cwd=Path(__file__).resolve().parents[1], start_new_session=True)
    try:
        if server.stdout.readline().strip() != "ready":
            raise RuntimeError(f"the warm surrogate server did not start (exit {server.wait()})")
        clients = {}
        for program in WarmCommands._fields:
            client = clients[program] = folder / program
            client.write_text(_CLIENT.format(python=sys.executable, socket=path,
                                             program=program), encoding="utf-8")
            client.chmod(0o755)
        yield WarmCommands(**clients)
    finally:
        os.killpg(server.pid, signal.SIGKILL)  # the server and its children (one session)
        server.wait(timeout=30)


if __name__ == "__main__":
    here = Path(__file__).resolve().parent  # tests/cli would shadow the package `cli`
    sys.path[:] = [entry for entry in sys.path if Path(entry or ".").resolve() != here]
    serve(sys.argv[1], sys.argv[2])
