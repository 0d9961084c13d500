"""``python -m abstain``: the ``abstain`` command, for an environment whose scripts are not
on PATH."""

from abstain.cli import main

if __name__ == "__main__":
    main()
