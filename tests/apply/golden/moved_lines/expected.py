class Group:
    def command(self, *args, **kwargs):
        from .decorators import command

        func: t.Optional[t.Callable] = None

        if args and callable(args[0]):
            assert len(args) == 1 and not kwargs, "Use 'command(**kwargs)(callable)'."
            (func,) = args
            args = ()

        if self.command_class and kwargs.get("cls") is None:
            kwargs["cls"] = self.command_class

        def decorator(f):
            cmd = command(*args, **kwargs)(f)
            self.add_command(cmd)
            return cmd

        if func is not None:
            return decorator(func)
        return decorator

    def group(self, *args, **kwargs):
        func = None

        if args and callable(args[0]):
            (func,) = args
            args = ()

        return func
