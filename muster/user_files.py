"""Files a user names on the command line: read with a limit and a clear refusal, written whole."""

from __future__ import annotations

import json
import os
import stat
import tempfile
from pathlib import Path
from typing import Any

from engine.errors import BadInput

# A rulebook or a soak's counts is text of a few megabytes at most: anything
# larger, or no regular file at all (/dev/zero, a pipe), is refused unread.
MAX_TEXT_BYTES = 64 * 1024 * 1024


def user_text(path: str, what: str) -> str:
    """The UTF-8 text of a file the user named; `BadInput` (status 1) naming it."""
    try:
        if not stat.S_ISREG(os.stat(path).st_mode):
            raise BadInput(f"{path}: the {what} is not a regular file")
        with open(path, "rb") as f:
            data = f.read(MAX_TEXT_BYTES + 1)
    except OSError as e:
        raise BadInput(f"{path}: cannot read the {what} ({e.strerror or e})") from e
    if len(data) > MAX_TEXT_BYTES:
        raise BadInput(f"{path}: the {what} is larger than {MAX_TEXT_BYTES >> 20} MiB")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise BadInput(f"{path}: the {what} is not UTF-8 text (byte {e.start + 1})") from e


def user_json(path: str, what: str) -> Any:
    """The JSON document of a file the user named; `BadInput` naming it (and
    the line, where the JSON breaks) for any text that is not JSON."""
    text = user_text(path, what)
    try:
        return json.loads(text)
    except json.JSONDecodeError as e:
        raise BadInput(f"{path}:{e.lineno}:{e.colno}: the {what} is not JSON: {e.msg}") from e
    except RecursionError as e:
        raise BadInput(f"{path}: the {what} is not JSON (nested too deeply)") from e
    except ValueError as e:  # a number of thousands of digits
        raise BadInput(f"{path}: the {what} is not JSON ({e})"[:200]) from e


def write_whole(path: Path, data: bytes) -> None:
    """Write a file the user named whole or not at all: into a hidden file beside
    it (`.NAME.…`), renamed into place once every byte is written."""
    fd, staged = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.chmod(staged, 0o666 & ~_umask())  # as `open` would make it, not mkstemp's 0600
        os.replace(staged, path)
    except BaseException:
        Path(staged).unlink(missing_ok=True)
        raise


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask
