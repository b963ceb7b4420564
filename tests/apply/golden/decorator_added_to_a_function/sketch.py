# ... existing code ...
    return 1


@functools.cache
def second():
    return 2
# ... existing code ...
