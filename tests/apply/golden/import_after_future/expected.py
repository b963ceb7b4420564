from __future__ import annotations

import warnings
from collections import OrderedDict, deque
from dataclasses import dataclass

from .._core._testing import TaskInfo
from ..abc import Event

T_Item = TypeVar("T_Item")


@dataclass
class State:
    buffer: deque
    task: TaskInfo
