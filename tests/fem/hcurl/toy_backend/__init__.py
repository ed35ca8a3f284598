"""A toy FEM backend for the registry test: one folder, registered by one line."""
