def last(items):
    for item in reversed(items):
        if item:
            break
    return item


def first(items):
    """Find the first true item."""
    for item in items:
        if item:
            # found
            break
