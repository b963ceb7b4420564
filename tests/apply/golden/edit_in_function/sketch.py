# ... existing code ...
def total(xs):
    """Sum of xs."""
    result = 0
    for x in xs:
        if x is None:
            continue
        result += x
    return result
# ... existing code ...
