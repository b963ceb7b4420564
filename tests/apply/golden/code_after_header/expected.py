# This file is dual licensed under the terms of the Apache License, Version
# 2.0, and the BSD License.

from __future__ import annotations

import re
from typing import NewType


def canonical(name):
    return re.sub(r"[-_.]+", "-", name).lower()
