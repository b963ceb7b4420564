class Group:
    def command(self, *args, **kwargs):
        from .decorators import command

        func: t.Optional[t.Callable] = None

        if args and callable(args[0]):
            # ... existing code ...
            args = ()

        if self.command_class and kwargs.get("cls") is None:
            kwargs["cls"] = self.command_class

        def decorator(f):
    # ... existing code ...
