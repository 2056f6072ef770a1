"""The outputs `muster build` writes, by name, for `--only`.

Named here, apart from the backends that write them, so that the command
line can offer the choices without importing the backends (and the map and
drawing libraries they import).
"""

from __future__ import annotations

PARTS = ("counters", "charts", "map")  # the print-and-play parts
OUTPUTS = ("engine", *PARTS, "vassal")
