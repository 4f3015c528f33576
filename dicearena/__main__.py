"""``python -m dicearena COMMAND``: the same as the ``dicearena`` command."""

import sys

from dicearena.cli import main

sys.exit(main())
