def from_email(data, validate=True):
    raw, unparsed = parse_email(data)

    if validate:
        exceptions: list[Exception] = []
    # ... existing code ...
        return from_raw(raw, validate=validate)
    # ... existing code ...
