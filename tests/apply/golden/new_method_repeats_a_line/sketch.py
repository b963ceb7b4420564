class PluginManager:
    # ... existing code ...
    def is_blocked(self, name):
        return name in self._name2plugin and self._name2plugin[name] is None

    def unblock(self, name):
        """Unblocks a name; returns whether it was blocked."""
        if self._name2plugin.get(name, -1) is None:
            del self._name2plugin[name]
            return True
        return False
