"""The ``skfem`` backend (the toolkit's own, always installed): order 0 (N0, :mod:`.n0`) and
order 1 (complete linear, :mod:`.complete_linear`), best approximation and mixed solve; their
solutions are :class:`~surrogate.fem.hcurl.skfem.solution.SkfemSolution`."""
