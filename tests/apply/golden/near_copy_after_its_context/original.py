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


def other():
    return 2
