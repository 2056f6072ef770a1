"""Files a user names on the command line, read with a limit and a clear refusal."""

from __future__ import annotations

import os
import stat

# A rulebook or a soak's counts is text of a few megabytes at most: anything
# larger, or no regular file at all (/dev/zero, a pipe), is refused unread.
MAX_TEXT_BYTES = 64 * 1024 * 1024


def user_text(path: str, what: str) -> str:
    """The UTF-8 text of a file the user named; `ValueError` (status 1) naming it."""
    try:
        if not stat.S_ISREG(os.stat(path).st_mode):
            raise ValueError(f"{path}: the {what} is not a regular file")
        with open(path, "rb") as f:
            data = f.read(MAX_TEXT_BYTES + 1)
    except OSError as e:
        raise ValueError(f"{path}: cannot read the {what} ({e.strerror or e})") from e
    if len(data) > MAX_TEXT_BYTES:
        raise ValueError(f"{path}: the {what} is larger than {MAX_TEXT_BYTES >> 20} MiB")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise ValueError(f"{path}: the {what} is not UTF-8 text (byte {e.start + 1})") from e
