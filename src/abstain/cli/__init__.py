"""The ``abstain`` command line. See ``abstain --help``."""

from abstain.cli.main import cli, main

__all__ = ["cli", "main"]
