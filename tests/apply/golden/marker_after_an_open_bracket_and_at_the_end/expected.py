class Validator:
    kind = int

    def __call__(self, value):
        if not isinstance(value, self.kind):
            msg = f"must be {self.kind!r}"
            raise TypeError(
                msg,
                self.kind,
                value,
            )

    def __repr__(self):
        return "<Validator>"


def check(value):
    if value is None:
        raise TypeError(
            "no value",
        )
    return value
