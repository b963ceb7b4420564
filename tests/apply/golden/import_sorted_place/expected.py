from __future__ import annotations

import base64
import binascii
import collections.abc as cabc
import typing as t

from ..http import dump_header
from .structures import CallbackDict


def encode(username: str, password: str) -> str:
    value = base64.b64encode(f"{username}:{password}".encode())
    return value.decode("ascii")
