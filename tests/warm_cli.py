"""A warm ``surrogate`` command for tests that run many short commands (the examples).

A short ``surrogate fit`` spends ≈ 3 s of CPU before its first step: importing torch, the
torch._dynamo that torch's optimisers import on their first step, and the package; the work
itself is a fraction of a second at the examples' test sizes. The server below imports those
once, then forks one child per command. The child takes over the caller's argument list,
working folder, environment and standard streams (passed as file descriptors over a Unix
socket) and runs the console script's entry point, :func:`surrogate.cli.app.main`; the caller
(a tiny stdlib-only client that the scripts call as ``$SURROGATE``) exits with the child's exit
code.
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
import select
import signal
import socket
import subprocess
import sys
import traceback
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

_CLIENT = '''#!{python} -IS
"""Runs `surrogate` in a child of the warm server at {socket} (tests/warm_cli.py)."""
import json, os, socket, sys
link = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
link.connect({socket!r})
request = {{"argv": sys.argv[1:], "cwd": os.getcwd(), "env": dict(os.environ)}}
socket.send_fds(link, [json.dumps(request).encode()], [0, 1, 2])
answer = link.recv(64)
sys.exit(int(answer) if answer else 70)
'''


def _exit_code(status: int) -> int:
    """A child's wait status as a shell reports it (128 + n for a signal n)."""
    code = os.waitstatus_to_exitcode(status)
    return 128 - code if code < 0 else code


def _run_child(request: dict, fds: list[int], entry_point: str, added: dict[str, str]) -> None:
    """In the forked child: become the caller's command, run the entry point, exit."""
    for signum in (signal.SIGINT, signal.SIGTERM, signal.SIGCHLD):
        signal.signal(signum, signal.SIG_DFL)
    for target, fd in enumerate(fds):
        os.dup2(fd, target)
        os.close(fd)
    os.chdir(request["cwd"])
    os.environ.clear()
    os.environ.update({**added, **request["env"]})
    sys.argv = [entry_point, *request["argv"]]
    code = 0
    try:
        from surrogate.cli.app import main

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
    # The package first (it sets the wait policy before torch loads); torch._dynamo is what
    # torch's optimisers import on their first step.
    for module in ("surrogate.cli.app", "surrogate.training.loop", "torch._dynamo"):
        importlib.import_module(module)

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
def warm_surrogate(folder: Path, entry_point: str, env: dict[str, str]) -> Iterator[Path]:
    """Start a warm server in ``folder`` with environment ``env`` (the callers' thread
    variables); yield the path of a client that acts as ``entry_point`` (the installed
    ``surrogate`` command); stop the server and any command still running afterwards."""
    path = str(folder / "warm.sock")
    server = subprocess.Popen([sys.executable, __file__, path, entry_point], env=env,
                              stdout=subprocess.PIPE, stdin=subprocess.DEVNULL, text=True,
                              cwd=Path(__file__).resolve().parents[1], start_new_session=True)
    try:
        if server.stdout.readline().strip() != "ready":
            raise RuntimeError(f"the warm surrogate server did not start (exit {server.wait()})")
        client = folder / "surrogate"
        client.write_text(_CLIENT.format(python=sys.executable, socket=path), encoding="utf-8")
        client.chmod(0o755)
        yield client
    finally:
        os.killpg(server.pid, signal.SIGKILL)  # the server and its children (one session)
        server.wait(timeout=30)


if __name__ == "__main__":
    here = Path(__file__).resolve().parent  # tests/cli would shadow the package `cli`
    sys.path[:] = [entry for entry in sys.path if Path(entry or ".").resolve() != here]
    serve(sys.argv[1], sys.argv[2])
