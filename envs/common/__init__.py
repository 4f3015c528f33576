"""Machinery shared by every game: config validation, dice sources, rendering helpers."""
