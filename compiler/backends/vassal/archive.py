"""A deterministic zip: the same files give the same bytes (fixed times, fixed order).

Both the module (`.vmod`) and its saved set-ups (`.vsav`) are zips; VASSAL
reads them with Java's zip reader, which needs nothing beyond deflate.
"""

from __future__ import annotations

import io
import zipfile

EPOCH = (1980, 1, 1, 0, 0, 0)  # the earliest time a zip can hold


def zipped(files: dict[str, bytes]) -> bytes:
    """The files in the order given, each deflated, every time stamp the same."""
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        for name, data in files.items():
            info = zipfile.ZipInfo(name, EPOCH)
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = 0o644 << 16
            z.writestr(info, data, compresslevel=6)
    return buf.getvalue()
