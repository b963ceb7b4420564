import typing as t


def command(name=None):
    """Creates a new command."""

    def decorator(f):
        return f

    return decorator


def group(name=None):
    """Creates a new group."""
    return command(name)
