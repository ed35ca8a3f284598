"""Benchmark: N0 best approximation and mixed Maxwell solves on the unit cube; prints JSON lines.

Each (n, method, solver, repeat) runs in a fresh subprocess (peak RSS = ru_maxrss of that run).
Uses fem-nedelec's best_approximation / solve_maxwell when surrogate.fem.nedelec exists, else a
local assembly (curl–curl + mass on N0; φ curl–curl with the P1 multiplier). Reports the median
over repeats and the fitted exponent of total time vs DOFs per (method, solver).

Run: OMP_NUM_THREADS=2 python benchmarks/fem.py --n 8 16 32 --big --repeats 3
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys

import numpy as np

_CHILD = r"""
import json, os, resource, sys, time
import numpy as np
n, method, solver = int(sys.argv[1]), sys.argv[2], sys.argv[3]
t0 = time.perf_counter()
try:
    from surrogate.fem import nedelec
    from surrogate.fem.domains import get_domain
    from surrogate.fem.problems import get_problem
except ImportError:
    nedelec = None
if nedelec is not None:
    import skfem
    mesh = skfem.MeshTet.init_tensor(*[np.linspace(0, 1, n + 1)] * 3)
    t_mesh = time.perf_counter() - t0
    fun = nedelec.best_approximation if method == "best" else nedelec.solve_maxwell
    sol = fun(mesh, get_problem("maxwell"), solver=solver)
    timings = dict(sol.timings); timings["mesh"] = t_mesh; info = sol.solve_info; source = "nedelec"
else:
    import scipy.sparse as sp
    from skfem import Basis, BilinearForm, ElementTetN0, ElementTetP1, LinearForm, MeshTet
    from skfem.helpers import curl, dot, grad
    from surrogate.fem.solvers import solve_hcurl_spd, solve_maxwell_saddle
    mesh = MeshTet.init_tensor(*[np.linspace(0, 1, n + 1)] * 3)
    t1 = time.perf_counter()
    bu = Basis(mesh, ElementTetN0())
    bp = Basis(mesh, ElementTetP1()) if method == "solve" else None
    t2 = time.perf_counter()
    def field(x):
        return np.array([np.sin(np.pi * x[1]), np.sin(np.pi * x[2]), np.sin(np.pi * x[0])])
    def curl_field(x):
        c = np.pi * np.array([np.cos(np.pi * x[2]), np.cos(np.pi * x[0]), np.cos(np.pi * x[1])])
        return -c
    if method == "best":
        A = BilinearForm(lambda u, v, w: dot(curl(u), curl(v)) + dot(u, v)).assemble(bu)
        b = LinearForm(lambda v, w: dot(curl_field(w.x), curl(v)) + dot(field(w.x), v)).assemble(bu)
        t3 = time.perf_counter()
        x, info = solve_hcurl_spd(A, b, bu, solver=solver, rtol=1e-8)
    else:
        def phi(x):
            return 0.5 * (x[0] ** 2 + x[1] ** 2 + 1)
        A = BilinearForm(lambda u, v, w: phi(w.x) * dot(curl(u), curl(v))).assemble(bu)
        B = sp.csr_matrix(BilinearForm(lambda u, q, w: dot(u, grad(q))).assemble(bu, bp))
        f = LinearForm(lambda v, w: dot(field(w.x), v)).assemble(bu)
        t3 = time.perf_counter()
        u, p, info = solve_maxwell_saddle(
            A, B, f, np.zeros(bp.N), bu, bp, free_u=bu.complement_dofs(bu.get_dofs()),
            free_p=bp.complement_dofs(bp.get_dofs()), solver=solver, rtol=1e-8)
    t4 = time.perf_counter()
    timings = {"mesh": t1 - t0, "basis": t2 - t1, "assembly": t3 - t2, "solve": t4 - t3}
    source = "local"
total = time.perf_counter() - t0
print(json.dumps({"n": n, "method": method, "solver": solver, "ndofs": int(mesh.edges.shape[1]),
                  "timings": timings, "total": total, "iterations": info.iterations,
                  "residual": info.residual, "solver_method": info.method,
                  "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
                  "threads": os.environ.get("OMP_NUM_THREADS"), "source": source}))
"""

DIRECT_MAX_N = 16  # sparse direct beyond ~30k unknowns is hopeless (issue: 239k did not finish)


def _run(n: int, method: str, solver: str) -> dict:
    out = subprocess.run([sys.executable, "-c", _CHILD, str(n), method, solver],
                         capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    """Run the chosen cases, print one JSON line per case, then the fitted exponents."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, nargs="+", default=[8, 16, 32], help="cells per side")
    ap.add_argument("--big", action="store_true", help="also n=48 (≈800k DOFs), best only")
    ap.add_argument("--methods", nargs="+", default=["best", "solve"])
    ap.add_argument("--solvers", nargs="+", default=["direct", "iterative"])
    ap.add_argument("--repeats", type=int, default=1)
    args = ap.parse_args()
    cases = [(n, m, s) for n in args.n for m in args.methods for s in args.solvers
             if not (s == "direct" and n > DIRECT_MAX_N)]
    if args.big:
        cases.append((48, "best", "iterative"))
    rows = []
    for n, m, s in cases:
        runs = [_run(n, m, s) for _ in range(args.repeats)]
        row = dict(runs[0])
        row["total"] = float(np.median([r["total"] for r in runs]))
        row["timings"] = {k: float(np.median([r["timings"][k] for r in runs]))
                          for k in runs[0]["timings"]}
        row["peak_rss_mb"] = max(r["peak_rss_mb"] for r in runs)
        row["repeats"] = args.repeats
        row["load_avg_1min"] = os.getloadavg()[0]
        rows.append(row)
        print(json.dumps(row), flush=True)
    for m in args.methods:
        for s in args.solvers:
            sel = [r for r in rows if r["method"] == m and r["solver"] == s]
            if len(sel) >= 2:
                logn = np.log([r["ndofs"] for r in sel])
                k = np.polyfit(logn, np.log([r["total"] for r in sel]), 1)[0]
                print(json.dumps({"fit": "total ~ ndofs^k", "method": m, "solver": s, "k": k}))


if __name__ == "__main__":
    main()
