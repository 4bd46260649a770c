"""Project-wide rules: the import floors, and every config composes."""
