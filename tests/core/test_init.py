import subprocess
import sys

import routescope


def test_public_names_are_curated() -> None:
    public = {n for n in dir(routescope) if not n.startswith("_")}
    assert {n for n in routescope.__all__ if not n.startswith("_")} == public
    assert sorted(routescope.__all__) == routescope.__all__
    assert all(getattr(routescope, name) is not None for name in routescope.__all__)


def test_importing_routescope_and_deciding_load_no_engine() -> None:
    """`import routescope`, `inspect` and `decide` never load the tool-search engine's
    libraries: they are for the commands that rank tools."""
    code = (
        "import sys, routescope; routescope.inspect('install FastAPI');"
        "routescope.contract.decide('stake 5 SOL');"
        "bad = [m for m in ('tantivy', 'numpy', 'onnxruntime', 'httpx', 'ruamel') "
        "if m in sys.modules];"
        "print(bad); sys.exit(1 if bad else 0)"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr


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
