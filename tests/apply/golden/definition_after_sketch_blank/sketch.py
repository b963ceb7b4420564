class ParseError(ValueError):
# ... existing code ...

class ConvertError(TypeError, ValueError):
    """Raised when item() fails to convert a value."""
