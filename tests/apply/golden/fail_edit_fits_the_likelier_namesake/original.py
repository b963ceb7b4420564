class Address:
    def format(self, value):
        return value.compressed

    def parse(
        self, value
    ) -> Address | None:
        if value is None:
            return None
        return Address(value)


class Interface:
    def format(self, value):
        return value.compressed

    def parse(
        self, value
    ) -> Interface | None:
        if value is None:
            return None
        return Interface(value)
