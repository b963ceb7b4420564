class Combined:
    def copy(self):
        """Return a shallow copy.

        The copy no longer reflects changes
        to the wrapped dicts.
        """
        return Combined(self)

    def to_dict(self, flat=True):
        """Return the contents as a dict.

        If `flat` is true the returned dict has the
        first item for each key only, otherwise all
        values are returned as lists.

        :param flat: keep only the first value.
        :return: a :class:`dict`
        """
        if flat:
            return dict(self.items())
        return dict(self.lists())

    def __len__(self):
        return len(self.keys())


class Frozen(Combined):
    def copy(self):
        return Combined(self)
