class Combined:
    def copy(self):
        """Return a shallow copy.

        The copy no longer reflects changes
        to the wrapped dicts.
        """
        return Combined(self)

    def __len__(self) -> int:
        return len(self.keys())


class Frozen(Combined):
    def copy(self):
        return Combined(self)
