"""Train an agent from a YAML recipe: ``python train.py configs/<recipe>.yaml`` (or ``dicearena train <recipe>``).

A thin script: the code is ``dicearena.agents.training.train``.
"""

import sys

from dicearena.agents.training.train import main

if __name__ == "__main__":
    sys.exit(main())
