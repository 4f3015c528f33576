"""The bundled YAML recipes (``dicearena train NAME``, ``dicearena recipes``); a package so that they install."""
