import ast
from bisect import bisect_right
import inspect
from typing import Iterable
from typing import List
from typing import Optional
from typing import Union
import warnings


class Source:
    pass
