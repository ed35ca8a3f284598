#!/usr/bin/env bash
# Bring your own geometry: a surrogate trained on the cylinder, evaluated on three shapes it
# never saw, each a tetrahedral mesh made by Gmsh from a .geo file in examples/geometry/:
#
#   waveguide_bend.geo  an L-shaped cross-section swept through a quarter turn (radius 0.75)
#   torus_section.geo   a tube of radius 0.3 around a circle of radius 1.1, 135 degrees
#   cube_void.geo       the unit cube with a spherical void of radius 0.25 (two material tags)
#
#   1. mesh generate: each .geo -> OUT_DIR/meshes/<shape>.msh (needs the gmsh extra:
#      pip install 'surrogate[meshing]'; meshes already there are reused);
#   2. gen-data + fit: POINTS points in the built-in cylinder, a small ResNet (fast fit);
#   3. evaluate: on every mesh file, level 1 = Gmsh's mesh, level 2 = its uniform refinement,
#      next to the N0 best approximation; tables, the inside/outside-cylinder split,
#      report/index.html and ParaView files report/vtk/<shape>.pvd (+ <shape>_level*.vtu).
#
# Usage:   examples/own_geometry.sh [OUT_DIR]          (default: own_geometry)
# Options (environment): EPOCHS (default 1000), POINTS (default 2000), LEVELS (default 1-2),
#          H (largest element size of the meshes, default: each .geo's own), SEED (default 0),
#          FEM_BACKENDS (the FEM backends to compare with, comma-separated, e.g. skfem;
#          default: every installed one), SURROGATE (the command).
# Runtime: about 2 min of CPU on 2 cores (4 min 40 s wall on a busy 2-core machine).
set -euo pipefail

OUT=${1:-own_geometry}
EPOCHS=${EPOCHS:-1000}
POINTS=${POINTS:-2000}
LEVELS=${LEVELS:-1-2}
SEED=${SEED:-0}
SURROGATE=${SURROGATE:-surrogate}
GEOMETRY=$(cd "$(dirname "$0")/geometry" && pwd)
export OMP_NUM_THREADS=${OMP_NUM_THREADS:-2}

mkdir -p "$OUT/meshes"
domains=()
for shape in waveguide_bend torus_section cube_void; do
    mesh="$OUT/meshes/$shape.msh"
    if [ ! -f "$mesh" ]; then
        "$SURROGATE" mesh generate "$GEOMETRY/$shape.geo" -o "$mesh" ${H:+--h "$H"} --quiet
    fi
    "$SURROGATE" mesh check "$mesh"
    domains+=(--domain "$mesh")
done

"$SURROGATE" gen-data maxwell --domain cylinder -n "$POINTS" --seed "$SEED" \
    -o "$OUT/data/maxwell.h5" --quiet
"$SURROGATE" fit "$OUT/data/maxwell.h5" --arch resnet --tau learned --width 32 --depth 2 \
    --epochs "$EPOCHS" --seed "$SEED" -o "$OUT/runs/resnet" --overwrite --quiet
"$SURROGATE" evaluate "$OUT/runs/resnet" "${domains[@]}" --levels "$LEVELS" --fem-method best \
    ${FEM_BACKENDS:+--fem-backend "$FEM_BACKENDS"} --slice z=0.5 --out "$OUT/report" \
    --vtk "$OUT/report/vtk" --report
