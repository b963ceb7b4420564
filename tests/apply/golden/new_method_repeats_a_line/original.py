class PluginManager:
    def __init__(self):
        self._name2plugin = {}

    def unregister(self, name):
        plugin = self._name2plugin.get(name)
        if self._name2plugin.get(name):
            assert name is not None
            del self._name2plugin[name]
        return plugin

    def set_blocked(self, name):
        self.unregister(name=name)
        self._name2plugin[name] = None

    def is_blocked(self, name):
        return name in self._name2plugin and self._name2plugin[name] is None
