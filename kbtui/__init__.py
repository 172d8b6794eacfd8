"""kbtui: a local-first knowledge app for the terminal."""

__version__ = "0.1.0"
