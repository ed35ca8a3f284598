"""The H(curl) FEM of the static Maxwell problem: one subfolder per backend, shared pieces here.

``registry`` (every backend's orders, methods, solvers and callables, declared once; the one
entry point for callers), ``skfem/`` (the own backend: N0 and the complete-linear space),
``ngsolve/`` (NGSolve's spaces of orders 0–4), ``forms`` (the skfem weak forms), ``errors``
(L² errors of any backend), ``solvers`` / ``saddle_split`` / ``hiptmair_xu`` / ``amg`` /
``discrete_operators`` (linear algebra, the checked sparse LU included).
"""
