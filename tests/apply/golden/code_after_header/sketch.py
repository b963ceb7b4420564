# ... existing code ...
from __future__ import annotations

import re
from typing import NewType


def canonical(name):
# ... existing code ...
