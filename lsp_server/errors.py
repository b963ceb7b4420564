"""Errors a user can act on. The CLI prints their message on one line, without a traceback."""


class TandemError(Exception):
    """A failure with a message that tells the user what happened and what to do."""

    exit_code = 2


class ModelNotInstalled(TandemError):
    pass


class CannotApply(TandemError):
    exit_code = 3


class BackendError(TandemError):
    """A remote inference backend cannot serve (unreachable, refused, wrong model, failed
    mid-answer): one clear message, then the local model serves where it is installed."""
