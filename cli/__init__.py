"""The Typer command line: parsing, progress display, wiring. No numerics here."""
