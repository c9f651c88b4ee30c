"""The static half: parse once, build the program model, run small checks over it."""
