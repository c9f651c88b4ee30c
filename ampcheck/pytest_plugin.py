"""pytest plugin (entry point `pytest11`): the `amp_trace` fixture for users' own suites.

Loaded by every pytest run in an environment where ampcheck is installed, so it must stay
import-light: torch is imported only when a test asks for the fixture.
"""
