# ...
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # pragma: no cover
    from markdown import blockparser
# ...
    def __init__(self, parser: blockparser.BlockParser):
        super().__init__(parser)
        self.current_sibling: etree.Element | None = None
