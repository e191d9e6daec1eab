"""`routescope-gui` as a user starts it: in a process of its own."""

import os
import subprocess
import sys
from pathlib import Path

PNG = b"\x89PNG\r\n\x1a\n"

# Makes `import PySide6` (and qasync) fail, as in an install without the `gui` extra.
WITHOUT_GUI_EXTRA = """\
import sys
from importlib.abc import MetaPathFinder


class NoGuiExtra(MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in ("PySide6", "shiboken6", "qasync"):
            raise ImportError(f"No module named {name!r}")
        return None


sys.meta_path.insert(0, NoGuiExtra())
from routescope_gui.app import main

sys.exit(main([]))
"""


def gui(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "routescope_gui", *args],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )


def test_screenshot_renders_the_window(tmp_path: Path) -> None:
    target = tmp_path / "window.png"
    done = gui("--screenshot", str(target), "--today", "2026-02-05", "Best ramen near Denver")
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == str(target)
    assert target.read_bytes()[:8] == PNG and target.stat().st_size > 20_000


def test_screenshot_of_the_tools_tab_waits_for_the_ranking(tmp_path: Path) -> None:
    target = tmp_path / "tools.png"
    done = gui(
        "--screenshot",
        str(target),
        "--tab",
        "Tools",
        "--fusion",
        "canonical",
        "--fit-threshold",
        "0.45",
        "find files named config.yaml",
    )
    assert done.returncode == 0, done.stderr
    assert target.read_bytes()[:8] == PNG and target.stat().st_size > 20_000


def test_an_unknown_tab_or_a_bad_rule_pack_is_one_line(tmp_path: Path) -> None:
    done = gui("--screenshot", str(tmp_path / "x.png"), "--tab", "Nope", "pizza")
    assert done.returncode == 2 and done.stderr.count("\n") == 1 and "no tab 'Nope'" in done.stderr
    # Issue 25 §2: without --screenshot the flag was ignored and the window opened.
    done = gui("--tab", "Bogus", "pizza", env={**os.environ, "HOME": str(tmp_path)})
    assert done.returncode == 2 and done.stderr.count("\n") == 1 and "no tab 'Bogus'" in done.stderr
    bad = tmp_path / "bad.toml"
    bad.write_text("name = [\n", encoding="utf-8")
    done = gui("--screenshot", str(tmp_path / "x.png"), "--rules", str(bad), "pizza")
    assert done.returncode == 2 and done.stderr.count("\n") == 1 and "bad.toml" in done.stderr
    # The External tab without a routers file once waited for one forever.
    done = gui("--screenshot", str(tmp_path / "x.png"), "--tab", "External", "pizza")
    assert done.returncode == 2 and done.stderr.count("\n") == 1
    assert "no routers file (--routers FILE)" in done.stderr
    done = gui("--screenshot", str(tmp_path / "x.png"), "--fit-threshold", "11", "pizza")
    assert done.returncode == 2 and done.stderr.count("\n") == 1
    assert "fit_threshold must be between 0 and 10" in done.stderr


def test_no_display_says_how_to_use_the_cli() -> None:
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in ("DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM")
    }
    done = gui(env=env)
    assert done.returncode == 2
    assert done.stderr.count("\n") == 1 and "routescope inspect" in done.stderr


def test_without_the_gui_extra_it_says_how_to_install_it() -> None:
    done = subprocess.run(
        [sys.executable, "-c", WITHOUT_GUI_EXTRA],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2, done.stderr
    assert done.stderr.count("\n") == 1 and "pip install 'routescope[gui]'" in done.stderr
    assert "Traceback" not in done.stderr


def test_the_app_runs_on_the_qasync_loop_and_quits_cleanly() -> None:
    code = (
        "import sys\n"
        "from PySide6.QtCore import QTimer\n"
        "from PySide6.QtWidgets import QApplication\n"
        "from routescope_gui.app import main\n"
        "app = QApplication(['t'])\n"
        # Asked again until it takes: quit() does nothing while no loop runs, and a loaded
        # machine may fire a one-shot in the events processed before main starts the loop.
        "again = QTimer(interval=1500)\n"
        "again.timeout.connect(app.quit)\n"
        "again.start()\n"
        "sys.exit(main(['install FastAPI']))\n"
    )
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen"}
    done = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr


def test_bad_arguments_are_one_line_and_status_2() -> None:
    for args in (["--size", "10x10", "--screenshot", "x.png"], ["--today", "nope"], ["--bogus"]):
        done = gui(*args)
        assert done.returncode == 2
        lines = done.stderr.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("routescope-gui: error: "), lines


def test_a_routers_file_fills_the_external_tab_or_is_one_line(tmp_path: Path) -> None:
    routers = Path(__file__).resolve().parents[2] / "examples" / "routers" / "routers.toml"
    target = tmp_path / "external.png"
    done = gui(
        "--screenshot",
        str(target),
        "--routers",
        str(routers),
        "--tab",
        "External",
        "I was charged twice, refund please",
        env={**os.environ, "ROUTELLM_API_KEY": ""},
    )
    assert done.returncode == 0, done.stderr
    assert target.read_bytes()[:8] == PNG and target.stat().st_size > 20_000
    bad = tmp_path / "routers.toml"
    bad.write_text('[routers.x]\nkind = "http"\nurl = "ftp://nowhere"\n', encoding="utf-8")
    done = gui("--screenshot", str(tmp_path / "x.png"), "--routers", str(bad), "pizza")
    assert done.returncode == 2 and done.stderr.count("\n") == 1
    assert "routers.x.url" in done.stderr


def test_a_catalog_given_is_the_tools_tabs_or_one_line(tmp_path: Path) -> None:
    """`--catalog PATH`: the Tools tab ranks that catalog's tools; one that does not load is
    one line and status 2."""
    examples = Path(__file__).resolve().parents[2] / "examples" / "catalogs"
    target = tmp_path / "tools.png"
    done = gui(
        "--screenshot",
        str(target),
        "--catalog",
        str(examples / "openai-tools.json"),
        "--tab",
        "Tools",
        "book a flight to Lisbon and check the weather there",
    )
    assert done.returncode == 0, done.stderr
    assert target.read_bytes()[:8] == PNG
    missing = tmp_path / "nowhere.json"
    done = gui("--screenshot", str(target), "--catalog", str(missing), "--tab", "Tools", "x")
    assert done.returncode == 2 and done.stderr.count("\n") == 1, done.stderr
    assert "nowhere.json" in done.stderr
