"""Pure rules of the print shop: no I/O and no framework imports (a test enforces it)."""
