from __future__ import annotations

from collections import OrderedDict, deque
from dataclasses import dataclass

from ..abc import Event

T_Item = TypeVar("T_Item")


@dataclass
class State:
    buffer: deque
