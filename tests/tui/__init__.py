"""The TUI tests: a package, so its conftest never shadows tests/conftest.py on sys.path."""
