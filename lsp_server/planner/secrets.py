"""What must never leave the machine: secret files by name, and text that looks like a secret.

Pure functions. A file is withheld when its name says it holds secrets (`.env`, keys,
credentials) or when its text contains something shaped like a credential; a retrieved chunk
is withheld on the same test. Better to withhold a harmless file than to send a key."""
from __future__ import annotations

import re
from pathlib import PurePosixPath

SECRET_NAMES = re.compile(
    r"(^|/)(\.env(\..*)?|\.envrc|\.netrc|\.npmrc|\.pypirc|\.git-credentials|credentials(\.json)?|"
    r"secrets?\.(json|ya?ml|toml)|id_(rsa|dsa|ecdsa|ed25519)(\.pub)?|.*\.(pem|key|p12|pfx|jks|keystore|kdbx))$",
    re.IGNORECASE)
SECRET_TEXT = re.compile(
    r"-----BEGIN [A-Z ]*PRIVATE KEY-----"
    r"|\bAKIA[0-9A-Z]{16}\b"                       # AWS access key id
    r"|\bsk-(?:ant-)?[A-Za-z0-9_-]{20,}"           # Anthropic / OpenAI style keys
    r"|\bgh[pousr]_[A-Za-z0-9]{30,}\b"             # GitHub tokens
    r"|\bxox[baprs]-[A-Za-z0-9-]{10,}"             # Slack tokens
    r"|\bAIza[0-9A-Za-z_-]{35}\b"                  # Google API keys
    r"|(?i:\b(?:api[_-]?key|secret|password|passwd|token|auth)\b\s*[:=]\s*['\"][^'\"\s]{12,}['\"])")


def is_secret_path(path: str) -> bool:
    return bool(SECRET_NAMES.search(PurePosixPath(path).as_posix()))


def has_secret(text: str) -> bool:
    return bool(SECRET_TEXT.search(text))


def withheld_reason(path: str, text: str) -> str | None:
    """Why this file (or chunk) may not be sent, or None when it may."""
    if is_secret_path(path):
        return "secret file"
    if has_secret(text):
        return "looks like it contains a credential"
    return None
