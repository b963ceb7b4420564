# ... existing code ...
    # ... existing code ...
GrpType = t.TypeVar("GrpType", bound=Group)


def group(name=None):
    """Creates a new group."""
    text = """
Usage:
  group NAME
"""
    return command(name, help=text)
