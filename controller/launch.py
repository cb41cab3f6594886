"""The installed ``diablotin`` command: :func:`controller.cli.main`, with the command's
imports made while the garbage collector is held (:mod:`controller.startup`)."""

from __future__ import annotations

import sys

from controller import startup


def main() -> int:
    startup.hold()  # released once the command starts (controller.cli)
    try:
        from controller.cli import main as run

        return run()
    finally:
        startup.release()  # also when it never started (a usage error, --help)


if __name__ == "__main__":
    sys.exit(main())
