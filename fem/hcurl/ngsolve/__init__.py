"""The ``ngsolve`` backend (the optional extra ``[ngsolve]``): the mixed solve in NGSolve's
H(curl) × H¹ of orders 0–4 (:mod:`.solve`) on the toolkit's own tetrahedra (:mod:`.mesh`), with
the mesh-only set-up built once per mesh (:mod:`.mesh_setup`) and the problem data as
coefficients (:mod:`.data`). Nothing here imports NGSolve at import time."""
