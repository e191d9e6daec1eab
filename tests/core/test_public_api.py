import subprocess
import sys

import routescope


def test_public_names_are_curated() -> None:
    public = {n for n in dir(routescope) if not n.startswith("_")}
    assert set(routescope.__all__) == public - {"annotations"}
    assert sorted(routescope.__all__) == routescope.__all__


def test_import_routescope_loads_no_qt() -> None:
    code = (
        "import sys, routescope; routescope.inspect('install FastAPI');"
        "bad = [m for m in sys.modules if m.split('.')[0] in "
        "('PySide6', 'shiboken6', 'qasync', 'routescope_gui')];"
        "print(bad); sys.exit(1 if bad else 0)"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr


def test_resources_are_found_in_the_checkout() -> None:
    assert (routescope.resources_root() / "rules" / "default.toml").is_file()
