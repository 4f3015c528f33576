"""Easy Come, Easy Go (Reiner Knizia): freeze and re-roll four dice to win prizes, steal them back."""
