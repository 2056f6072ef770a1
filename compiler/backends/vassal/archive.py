"""A deterministic zip: the same files give the same bytes (fixed times, fixed order).

Both the module (`.vmod`) and its saved set-ups (`.vsav`) are zips; VASSAL
reads them with Java's zip reader, which needs nothing beyond deflate.
"""

from __future__ import annotations

import io
import zipfile

EPOCH = (1980, 1, 1, 0, 0, 0)  # the earliest time a zip can hold


def zipped(files: dict[str, bytes]) -> bytes:
    """The files in the order given, every time stamp the same; PNGs stored, the rest deflated."""
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        for name, data in files.items():
            info = zipfile.ZipInfo(name, EPOCH)
            # A PNG is deflated already: a second pass costs time and saves nothing.
            png = name.endswith(".png")
            info.compress_type = zipfile.ZIP_STORED if png else zipfile.ZIP_DEFLATED
            info.external_attr = 0o644 << 16
            z.writestr(info, data, compresslevel=None if png else 6)
    return buf.getvalue()
