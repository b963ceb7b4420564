import ast
from bisect import bisect_right
import inspect
from typing import Iterable
from typing import List
# ... existing code ...
import warnings
# ... existing code ...
