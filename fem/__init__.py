"""Finite elements: domains, meshes, Nédélec (N0) Maxwell solves, point evaluation."""
