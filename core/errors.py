"""The one kind of error a user can fix, wherever it is found."""

from typing import Any


class InputError(ValueError):
    """Bad input (a config value, a piece file, an impossible puzzle, an optimiser setting) a user can fix."""


def whole(value: Any) -> bool:
    """Is a setting a whole number (a count, a cap), as a config gives one? True and False are not."""
    return isinstance(value, int) and not isinstance(value, bool)
