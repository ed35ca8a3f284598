// The unit cube [0, 1]^3 with a spherical void of radius 0.25 at its centre, the void's
// surface a second boundary; two material regions: the inner shell (tag 2) and the rest (1).
SetFactory("OpenCASCADE");
Box(1) = {0, 0, 0, 1, 1, 1};
Sphere(2) = {0.5, 0.5, 0.5, 0.25};
Sphere(3) = {0.5, 0.5, 0.5, 0.35};
BooleanDifference(4) = {Volume{1}; Delete;}{Volume{3};};
BooleanDifference(5) = {Volume{3}; Delete;}{Volume{2}; Delete;};
Coherence;
Physical Volume("outer", 1) = {4};
Physical Volume("shell", 2) = {5};
Mesh.MeshSizeMax = 0.15;
