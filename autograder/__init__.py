"""Sandboxed autograder for attention homework.

Kept import-light on purpose: the sandboxed worker imports this package before it drops privileges."""
__version__ = "0.1.0"
__all__ = ["__version__"]
