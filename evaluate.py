"""Play agents against each other from a YAML recipe: ``python evaluate.py configs/eval_<game>.yaml`` (or
``dicearena evaluate <recipe>``).

A thin script: the code is ``dicearena.agents.evaluation.evaluate``.
"""

import sys

from dicearena.agents.evaluation.evaluate import main

if __name__ == "__main__":
    sys.exit(main())
