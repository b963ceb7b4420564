class Response:
    def stream(self, amt: int = 2**16):
        while True:
            data = self.read(amt)
            if not data:
                return
            yield data

    def read1(
        self,
        amt: int | None = None,
    ) -> bytes:
        """Read up to amt bytes, with one call at most.

        :param amt: how much to read.
        """
        return self._fp.read1(amt)

    def read(
        self,
        amt: int | None = None,
        cache_content: bool = False,
    ) -> bytes:
        """Read up to amt bytes.

        :param amt: how much to read.
        :param cache_content: keep what was read.
        """
        data = self._fp.read(amt)
        if cache_content:
            self._body = data
        return data

    def close(self) -> None:
        self._fp.close()
