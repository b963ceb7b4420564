class ParseError(ValueError):
    pass


class EmptyKeyError(ParseError):
    def __init__(self, line):
        super().__init__(line)


class ConvertError(TypeError, ValueError):
    """Raised when item() fails to convert a value."""
