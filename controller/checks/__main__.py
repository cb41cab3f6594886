"""``python -m controller.checks [--config PATH]``: the same as ``diablotin doctor``."""

import sys

from . import main

sys.exit(main())
