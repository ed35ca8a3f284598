"""``python -m surrogate``: the same command line as the ``surrogate`` script."""

from surrogate.cli.app import main

if __name__ == "__main__":
    main()
