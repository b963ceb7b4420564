class PlatformDirs:
    """Base API."""

    def __init__(self, appname: str) -> None:
        self.appname = appname

    @property
    def user_data_dir(self) -> str:
        return f"~/.local/share/{self.appname}"
