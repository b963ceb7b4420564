# ...
        return value.compressed

    def parse(self, value) -> None | (
        Interface
    ):
        if value is None:
# ...
