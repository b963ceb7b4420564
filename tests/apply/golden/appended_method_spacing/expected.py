class PlatformDirs:
    """Base API."""

    def __init__(self, appname: str) -> None:
        self.appname = appname

    @property
    def user_data_dir(self) -> str:
        return f"~/.local/share/{self.appname}"

    def iter_data_dirs(self):
        """:yield: all user and site data directories."""
        yield self.user_data_dir
