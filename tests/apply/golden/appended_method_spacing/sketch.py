class PlatformDirs:
    # ... existing code ...
    def iter_data_dirs(self):
        """:yield: all user and site data directories."""
        yield self.user_data_dir
