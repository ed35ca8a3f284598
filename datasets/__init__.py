"""HDF5 datasets: recipes, the file format, generators, readers."""
