"""The H(curl) FEM of the static Maxwell problem: one module per order, shared linear solvers.

``n0`` (order 0, lowest-order Nédélec), ``complete_linear`` (order 1, the complete-linear space
hierarchical over N0: its element, evaluation, split and iterative solves), ``solvers`` /
``hiptmair_xu`` / ``amg`` / ``discrete_operators`` (linear algebra) and ``registry`` (the FEM
methods by order, the one entry point for callers).
"""
