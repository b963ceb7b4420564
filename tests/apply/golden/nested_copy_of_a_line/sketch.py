# ... existing code ...
        else:
            file = default_stdout()

        # No stream to write to (pythonw on Windows).
        if file is None:
            return

    out = message
# ... existing code ...
