"""Order 1 of the skfem backend, the complete-linear space: its element (:mod:`.element`), the
best approximation and mixed solve (:mod:`.solve`), point evaluation (:mod:`.evaluate`) and
iterative solvers (:mod:`.iterative`)."""
