"""``python -m commpress ...``: the ``commpress`` command-line tool (docs/cli.md) shipped in
the wheel, run in place of this process so that its output, exit status and signals are the
tool's own."""

import os
import sys

from ._paths import TOOL


def main() -> None:
    if not os.access(TOOL, os.X_OK):
        sys.exit(f"commpress: the command-line tool is not in this installation ({TOOL})")
    os.execv(TOOL, [TOOL, *sys.argv[1:]])


if __name__ == "__main__":
    main()
