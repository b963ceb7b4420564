class ParseError(ValueError):
    pass


class EmptyKeyError(ParseError):
    def __init__(self, line):
        super().__init__(line)
