"""The command modules: one per command group, each with a `register(app)`."""
