def windowed(seq, n, step=1):
    if step < 1:
        raise ValueError("step must be >= 1")

    iterable = iter(seq)
    window = deque(islice(iterable, n), maxlen=n)
    filler = map(window.append, iterable)
    for _ in islice(filler, step - 1, None, step):
        yield tuple(window)
# ... existing code ...
