"""Root conftest: puts the repository root on sys.path (pytest's rootdir conftest rule), so
tests import shared helpers as `tests.paths`, `tests.lint.helpers`, ..."""
