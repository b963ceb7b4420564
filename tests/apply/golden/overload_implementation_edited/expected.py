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


def convert(
    value=None, strict=False
):
    """Convert a value."""
    if value is None:
        return "" if strict else "-"
    return str(value)


def other():
    return 1
