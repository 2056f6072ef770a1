"""What a player sees in the real VASSAL: a Muster `.vlog` stepped to its end in VASSAL
3.7.26, each map painted from one side's seat (tests/backends/vassal_log/StepLog.java).
Pieces masked from that side are painted as VASSAL shows them to it, face down. Run

    python -m tests.vassal_view MODULE.vmod GAME.vlog SIDE OUT

to write OUT-Map.png and OUT-Tracks.png (SIDE as the module names it: "British"). The
harnesses run on vassal-check's classpath (`../shared/vassal/engine`, its README lists
the Debian packages), under a virtual screen.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from tests.conftest import shared_file

VASSAL_CHECK = shared_file("vassal", "engine", "vassal-check")
HARNESSES = Path(__file__).parent / "backends" / "vassal_log"


def missing() -> str | None:
    """Why the harnesses cannot run here (None: they can)."""
    if VASSAL_CHECK is None:
        return "no shared/vassal/engine/vassal-check beside the checkout"
    for tool in ("java", "javac", "xvfb-run"):
        if shutil.which(tool) is None:
            return f"{tool} is not installed (.ci/run installs it)"
    for p in classpath():
        if not p.is_file():
            return f"{p} is missing (see shared/vassal/engine/README.md)"
    return None


def classpath() -> list[Path]:
    """vassal-check's jars, read from the script so that the two never differ."""
    assert VASSAL_CHECK is not None
    script = VASSAL_CHECK.read_text()
    jar = re.search(r"\$here/(vassal-[\d.]+\.jar)", script)
    jars = re.search(r'^jars="([^"]+)"', script, re.M)
    assert jar and jars, "vassal-check names its jars as it did"
    here = VASSAL_CHECK.parent
    return [here / jar.group(1)] + [Path(f"/usr/share/java/{j}.jar") for j in jars[1].split()]


def harness(name: str, home: Path, *args: object) -> list[str]:
    """`java NAME.java ARGS…` (Java's single-file launcher) under xvfb-run."""
    java = ["java", "-Xmx1500m", "-Djava.awt.headless=false", f"-Duser.home={home}"]
    java += ["-cp", ":".join(map(str, classpath())), str(HARNESSES / f"{name}.java")]
    return ["xvfb-run", "-a", "-s", "-screen 0 1600x1000x24", *java, *map(str, args)]


def main(argv: list[str]) -> int:
    if len(argv) != 4:
        print(__doc__)
        return 2
    if why := missing():
        print(f"cannot run VASSAL here: {why}")
        return 77
    with tempfile.TemporaryDirectory() as home:
        module, log, side, out = argv
        command = harness("StepLog", Path(home), module, log, "-", side, out)
        done = subprocess.run(command, text=True, capture_output=True, check=False)
    print("\n".join(line for line in done.stdout.splitlines() if line.startswith("WROTE")))
    if done.returncode != 0:
        print(done.stdout[-3000:] + done.stderr[-2000:])
    return done.returncode


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
