def from_email(data, validate=True):
    raw, unparsed = parse_email(data)

    if validate:
        for key in unparsed:
            if key in KNOWN:
                message = f"{key!r} has invalid data"
            else:
                message = f"unrecognized field: {key!r}"
            exceptions.append(InvalidMetadata(key, message))
        if exceptions:
            raise ExceptionGroup("unparsed", exceptions)

    try:
        return from_raw(raw, validate=validate)
    except ExceptionGroup as group:
        raise ExceptionGroup("invalid metadata", group.exceptions) from None
