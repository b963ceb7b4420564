if NEW:
    def guard(x):
        """Check x.

        Line a of the docs.
        Line b of the docs.
        The end of it.
        """
        return check(x)
else:
    guard = Form(
        doc="""Check x.

        Line a of the docs.
        Line b of the docs.
        The end of it.
        """)


if NEW:
    def narrow(x):
        """Check x.

        Line a of the docs.
        Line b of the docs.
        Narrowing.
        """
        return check(x)
else:
    narrow = Form(
        doc="""Check x.

        Line a of the docs.
        Line b of the docs.
        Narrowing.
        """)


def other():
    return 2
