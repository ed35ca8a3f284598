// A torus section: tube radius 0.3 around a circle of radius 1.1 in the plane x3 = 0.5,
// angles 0 to 3 pi / 4. Its inner half lies inside the training cylinder, its outer half not.
SetFactory("OpenCASCADE");
Torus(1) = {0, 0, 0.5, 1.1, 0.3, 3*Pi/4};
Physical Volume("torus", 1) = {1};
Mesh.MeshSizeMax = 0.15;
