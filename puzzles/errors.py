"""The one exception type for bad input: a user's mistake, reported as one line, never a traceback."""


class PuzzleInputError(ValueError):
    """Bad input (a config value, a piece file, an impossible puzzle) that the user can fix."""
