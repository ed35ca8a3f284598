// The built-in training cylinder as a Gmsh shape: x1^2 + x2^2 <= 1, 0 <= x3 <= 1 (volume pi).
SetFactory("OpenCASCADE");
Cylinder(1) = {0, 0, 0, 0, 0, 1, 1};
Physical Volume("cylinder", 1) = {1};
Mesh.MeshSizeMax = 0.3;
