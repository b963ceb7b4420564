from typing import Iterator


class Base:
    def stream(self, amt: int = 2**16) -> Iterator[bytes]:
        raise NotImplementedError()

    def read(
        self,
        amt: int | None = None,
        cache_content: bool = False,
    ) -> bytes:
        raise NotImplementedError()

    def read_chunked(
        self,
        amt: int | None = None,
    ) -> Iterator[bytes]:
        raise NotImplementedError()

    def release_conn(self) -> None:
        raise NotImplementedError()


class Response(Base):
    def read_chunked(
        self,
        amt: int | None = None,
    ) -> Iterator[bytes]:
        yield b""
