"""Ea$y Money (Milton Bradley): the rules engine (``engine.py``), its config (``config.py``) and its board and card
decks as data files (``data.py``, ``data/``). See README.md."""
