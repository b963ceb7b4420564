def windowed(seq, n, step=1):
    if step < 1:
        raise ValueError("step must be >= 1")

    window = deque(maxlen=n)
    i = n
    for _ in map(window.append, seq):
        i -= 1
        if not i:
            i = step
            yield tuple(window)

    size = len(window)
    if size < n:
        window += (None,) * (n - size)
        yield tuple(window)


def substrings(iterable):
    return iterable
