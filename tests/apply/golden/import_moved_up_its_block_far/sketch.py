"""Rewrite asserts."""

import ast
from collections import defaultdict
import errno
# ... existing code ...
from pathlib import Path
from pathlib import PurePath
import struct
import sys
import tokenize
import types
from typing import Callable
from typing import Dict
from typing import IO
# ... existing code ...
