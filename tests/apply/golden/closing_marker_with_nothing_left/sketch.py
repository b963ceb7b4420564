# ... existing code ...
def first(items):
    """Find the first true item."""
    for item in items:
        if item:
            # found
            break
# ... rest of the code unchanged ...
