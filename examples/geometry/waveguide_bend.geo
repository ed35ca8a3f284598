// A waveguide bend: an L-shaped cross-section (three unit squares of side 0.25) swept through
// a quarter turn of radius 0.75 around the x3-axis. Partly inside the training cylinder.
SetFactory("OpenCASCADE");
s = 0.25;
// L-shaped cross-section in the (x1, x3) plane at x2 = 0, centred on radius 0.75
Point(1) = {0.75 - s, 0, 0.5 - s};
Point(2) = {0.75 + s, 0, 0.5 - s};
Point(3) = {0.75 + s, 0, 0.5};
Point(4) = {0.75, 0, 0.5};
Point(5) = {0.75, 0, 0.5 + s};
Point(6) = {0.75 - s, 0, 0.5 + s};
Line(1) = {1, 2}; Line(2) = {2, 3}; Line(3) = {3, 4};
Line(4) = {4, 5}; Line(5) = {5, 6}; Line(6) = {6, 1};
Curve Loop(1) = {1, 2, 3, 4, 5, 6};
Plane Surface(1) = {1};
Extrude {{0, 0, 1}, {0, 0, 0}, Pi/2} { Surface{1}; }
Physical Volume("guide", 1) = {1};
Mesh.MeshSizeMax = 0.12;
