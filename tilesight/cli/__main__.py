"""``python -m tilesight.cli``."""

import sys

from . import main

sys.exit(main())
