class Response:
    def stream(self, amt: int = 2**16):
        while True:
            data = self.read(amt)
            if not data:
                return
            yield data

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
