"""The one kind of error a user can fix, wherever it is found."""


class InputError(ValueError):
    """Bad input (a config value, a piece file, an impossible puzzle, an optimiser setting) a user can fix."""
