# ...
            yield data

    def read1(
        self,
        amt: int | None = None,
    ) -> bytes:
        """Read up to amt bytes, with one call at most.

        :param amt: how much to read.
        """
        return self._fp.read1(amt)
# ...
