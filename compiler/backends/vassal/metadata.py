"""`moduledata` and `savedata`: the small XML files VASSAL reads before the rest of a zip."""

from __future__ import annotations

import xml.etree.ElementTree as ET

VASSAL_VERSION = "3.7.0"
MODULE_VERSION = "1.0"


def metadata(name: str, description: str) -> bytes:
    """`<data version="1">` with the module's version, VASSAL version, description and name.

    `dateSaved` is 0 so that a rebuild gives the same bytes.
    """
    root = ET.Element("data", version="1")
    for tag, value in (
        ("version", MODULE_VERSION),
        ("extra1", ""),
        ("extra2", ""),
        ("VassalVersion", VASSAL_VERSION),
        ("dateSaved", "0"),
        ("description", description),
        ("name", name),
    ):
        ET.SubElement(root, tag).text = value
    return b'<?xml version="1.0" encoding="UTF-8" standalone="no"?>\n' + ET.tostring(
        root, encoding="utf-8", xml_declaration=False
    )
