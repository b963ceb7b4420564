import ast
import inspect
import warnings
from bisect import bisect_right
from typing import Iterable
from typing import List
from typing import Optional
from typing import Union


class Source:
    pass
