"""ampcheck's version, in a module of its own so that any part of ampcheck can name it without
importing the package root (which reaches the tracer lazily)."""
__version__ = "0.1.0"
