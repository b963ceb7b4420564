from typing import overload


@overload
def convert(
    *, strict: bool = ...
) -> str:
    ...


@overload
def convert(  # noqa: F811
    value: int, strict: bool = ...
) -> str:
    ...


def convert(  # noqa: F811
    value=None, strict=False
):
    """Convert a value."""
    if value is None:
        return ""
    return str(value)


def other():
    return 1
