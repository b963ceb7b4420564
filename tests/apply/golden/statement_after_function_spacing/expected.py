import typing as t


def command(name=None):
    """Creates a new command."""

    def decorator(f):
        return f

    return decorator


GrpType = t.TypeVar("GrpType", bound=Group)


def group(name=None):
    """Creates a new group."""
    text = """
Usage:
  group NAME
"""
    return command(name, help=text)
