def echo(message, file=None, err=False):
    """Print a message to a stream."""
    if file is None:
        if err:
            file = default_stderr()
        else:
            file = default_stdout()

    out = message
    file.write(out)
    file.flush()
