"""What must never leave the machine: secret files by name (withheld whole), and credential
values inside code (redacted: `aws_secret_access_key = "<redacted>"`, so the code stays useful).

Credential values are found by detect-secrets (Yelp's maintained detector: its keyword,
basic-auth, private-key and vendor-token plugins; not the entropy ones, which flag identifiers
and hashes) plus the token shapes Tandem knew before. Redaction is a pure, deterministic function
of the text, so the expander can put a redacted line that a sketch copies back to the file's own
(`restore`): the planner sees `<redacted>`, the file keeps its value.
"""
from __future__ import annotations

import re
import threading
from dataclasses import dataclass, field
from pathlib import PurePosixPath

from lsp_server.text import indent_of

REDACTED = "<redacted>"

SECRET_NAMES = re.compile(
    r"(^|/)(\.env(\..*)?|\.envrc|\.netrc|\.npmrc|\.pypirc|\.git-credentials|credentials(\.json)?|"
    r"secrets?\.(json|ya?ml|toml)|id_(rsa|dsa|ecdsa|ed25519)(\.pub)?|.*\.(pem|key|p12|pfx|jks|keystore|kdbx))$",
    re.IGNORECASE)
# Token shapes, whole: the value is the match.
TOKENS = re.compile(
    r"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b"                # AWS access key id
    r"|\bsk-(?:ant-)?[A-Za-z0-9_-]{20,}"           # Anthropic / OpenAI style keys
    r"|\bgh[pousr]_[A-Za-z0-9]{30,}\b"             # GitHub tokens
    r"|\bxox[baprs]-[A-Za-z0-9-]{10,}"             # Slack tokens
    r"|\bAIza[0-9A-Za-z_-]{35}\b")                 # Google API keys
# Only lines with one of these go through detect-secrets (about 0.3 ms a line otherwise).
SUSPECT = re.compile(r"(?i)pass|pwd|secret|token|key|auth|cred|private|api|://[^/\s]*:[^@\s]*@|\b(?:AKIA|ASIA|AIza|sk-|"
                     r"gh[pousr]_|xox|glpat-|npm_|pypi-|eyJ)")
PRIVATE_KEY = re.compile(r"-----BEGIN [A-Z ]*PRIVATE KEY-----")
PRIVATE_KEY_END = re.compile(r"-----END [A-Z ]*PRIVATE KEY-----")
# detect-secrets plugins used: everything but the entropy detectors and public IP addresses
PLUGINS = ("AWSKeyDetector", "ArtifactoryDetector", "AzureStorageKeyDetector", "BasicAuthDetector",
           "CloudantDetector", "DiscordBotTokenDetector", "GitHubTokenDetector", "GitLabTokenDetector",
           "IbmCloudIamDetector", "IbmCosHmacDetector", "JwtTokenDetector", "KeywordDetector", "MailchimpDetector",
           "NpmDetector", "OpenAIDetector", "PrivateKeyDetector", "PypiTokenDetector", "SendGridDetector",
           "SlackDetector", "SoftlayerDetector", "SquareOAuthDetector", "StripeDetector",
           "TelegramBotTokenDetector", "TwilioKeyDetector")
_settings_lock = threading.Lock()  # detect-secrets keeps its settings in process-wide state


def is_secret_path(path: str) -> bool:
    return bool(SECRET_NAMES.search(PurePosixPath(path).as_posix()))


def withheld_reason(path: str) -> str | None:
    """Why a whole file may not be sent (its name says it holds secrets), or None."""
    return "secret file" if is_secret_path(path) else None


def _values(line: str) -> list[str]:
    """The credential values in one line, longest first."""
    found = {m.group() for m in TOKENS.finditer(line)}
    if SUSPECT.search(line):
        from detect_secrets.core.scan import scan_line
        from detect_secrets.settings import transient_settings

        with _settings_lock, transient_settings({"plugins_used": [{"name": n} for n in PLUGINS]}):
            found |= {s.secret_value for s in scan_line(line) if s.secret_value and len(s.secret_value) >= 4}
    return sorted((v for v in found if v in line), key=len, reverse=True)


@dataclass(frozen=True)
class Redaction:
    text: str                                   # what may be sent
    values: int = 0                             # credential values replaced
    lines: dict[str, str] = field(default_factory=dict)  # redacted line (stripped) → the original (stripped)


def redact(text: str) -> Redaction:
    """The text with every credential value replaced by REDACTED (private key blocks line by line)."""
    out, lines, count, in_key = [], {}, 0, False
    for line in text.split("\n"):
        new = line
        if in_key or PRIVATE_KEY.search(line):
            in_key = not PRIVATE_KEY_END.search(line)
            if not PRIVATE_KEY.search(line) and not PRIVATE_KEY_END.search(line):
                new = indent_of(line) + REDACTED
        else:
            for value in _values(line):
                new = new.replace(value, REDACTED)
        if new != line:
            count += max(1, new.count(REDACTED) - line.count(REDACTED))
            lines[new.strip()] = line.strip()
        out.append(new)
    return Redaction("\n".join(out), count, lines)


def restore(sketch: str, original: str) -> str:
    """The sketch with each line it copied from the redacted `original` given back its values
    (whatever the sketch's indentation). Lines that still hold REDACTED are the caller's to refuse."""
    if REDACTED not in sketch:
        return sketch
    lines = redact(original).lines
    out = []
    for line in sketch.split("\n"):
        key = line.strip()
        if REDACTED in key and key in lines:
            line = indent_of(line) + lines[key]
        out.append(line)
    return "\n".join(out)
