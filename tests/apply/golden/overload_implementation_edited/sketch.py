# ... existing code ...
def convert(
    value=None, strict=False
):
    """Convert a value."""
    if value is None:
        return "" if strict else "-"
    return str(value)
# ... existing code ...
