"""The `.desktop` file and the AppStream metainfo of the desktop bundle: their structure is
checked here in Python on every machine, and by the freedesktop validators where they are
installed (`desktop-file-validate`, `appstreamcli`), so the result never depends on which
tools a machine has."""

import configparser
import datetime as dt
import re
import shutil
import struct
import subprocess
import tomllib
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
LINUX = ROOT / "packaging" / "linux"
DESKTOP = LINUX / "routescope.desktop"
APP_ID = "io.github.routescope.Routescope"
METAINFO = LINUX / f"{APP_ID}.metainfo.xml"
EXECUTABLE = "routescope-gui"

_MAIN = (
    "AudioVideo Audio Video Development Education Game Graphics Network Office Science Settings "
    "System Utility"
)
MAIN_CATEGORIES = frozenset(_MAIN.split())
"""The Desktop Menu Specification's main categories: an entry is in exactly one, or it shows
up in several menus (desktop-file-validate's hint)."""
_KEYS = (
    "Type Version Name GenericName NoDisplay Comment Icon Hidden OnlyShowIn NotShowIn "
    "DBusActivatable TryExec Exec Path Terminal Actions MimeType Categories Implements Keywords "
    "StartupNotify StartupWMClass URL PrefersNonDefaultGPU SingleMainWindow"
)
DESKTOP_KEYS = frozenset(_KEYS.split())
"""The keys of the Desktop Entry Specification 1.5 (others must start with `X-`)."""

KNOWN_APPSTREAM_ISSUES = {
    # AppStream 1.0 replaced the top-level `<developer_name>` with `<developer id><name>` and
    # reports the old tag as deprecated; older validators (0.16 on Debian 12) do not know the
    # new one yet. The file follows the current specification.
    ("unknown-tag", "developer"),
    # Pedantic: the specification "strongly encourages" a lowercase component ID. The ID keeps
    # the application's capitalised name (as GNOME's do), since renaming it renames the files
    # a desktop installs and every reference to them.
    ("cid-contains-uppercase-letter", APP_ID),
}
"""The validator's remarks that are known and accepted, each for the reason above; any other
issue, of any severity (pedantic included), fails the test."""
_ISSUE = re.compile(r"^([EWIP]): [^:\s]+(?::\d+)?: ([a-z0-9-]+)(?: (.*))?$")


def desktop_entry() -> configparser.SectionProxy:
    parser = configparser.ConfigParser(interpolation=None, strict=True, delimiters=("=",))
    parser.optionxform = str  # type: ignore[assignment,method-assign]  # keys are case-sensitive
    parser.read(DESKTOP, encoding="utf-8")
    return parser["Desktop Entry"]


def _list(value: str) -> list[str]:
    """A desktop file's list value (`a;b;`): its items; it must end with `;`."""
    assert value.endswith(";"), value
    return value[:-1].split(";")


def _metainfo() -> ET.Element:
    return ET.parse(METAINFO).getroot()


def _png_size(path: Path) -> tuple[int, int]:
    header = path.read_bytes()[:24]
    assert header[:8] == b"\x89PNG\r\n\x1a\n" and header[12:16] == b"IHDR", path
    width, height = struct.unpack(">II", header[16:24])
    return width, height


def _version(text: str) -> tuple[int, ...]:
    return tuple(int(part) for part in text.split("."))


def test_the_desktop_file_has_what_a_launcher_needs() -> None:
    text = DESKTOP.read_text(encoding="utf-8")
    assert text.startswith("[Desktop Entry]\n") and text.endswith("\n")
    entry = desktop_entry()
    for key in entry:
        assert key.split("[", 1)[0] in DESKTOP_KEYS or key.startswith("X-"), key
    assert entry["Type"] == "Application"
    for key in ("Name", "GenericName", "Comment", "Icon"):
        assert entry.get(key, "").strip(), key
    assert entry["Exec"] == EXECUTABLE  # the bundle's install step rewrites it to a full path
    assert entry["Terminal"] == "false"
    assert entry["StartupWMClass"] == EXECUTABLE  # Qt's window class: the program's name
    assert (ROOT / "resources" / "icons" / f"{entry['Icon']}.svg").is_file()
    categories = _list(entry["Categories"])
    assert all(categories) and len(set(categories)) == len(categories), categories
    main = [name for name in categories if name in MAIN_CATEGORIES]
    assert len(main) == 1, f"exactly one main category, not {main}"
    keywords = _list(entry["Keywords"])
    assert all(keywords) and len(set(keywords)) == len(keywords), keywords
    assert entry["X-AppStream-ID"] == APP_ID


def test_desktop_file_validate_has_nothing_to_say() -> None:
    validator = shutil.which("desktop-file-validate")
    if validator is None:
        pytest.skip("desktop-file-validate is not installed (the checks above still ran)")
    done = subprocess.run([validator, str(DESKTOP)], capture_output=True, text=True)
    # Errors, warnings and hints alike: a clean file gets no output at all.
    assert (done.returncode, done.stdout + done.stderr) == (0, "")


def test_the_metainfo_describes_the_application() -> None:
    component = _metainfo()
    assert component.tag == "component" and component.get("type") == "desktop-application"
    for tag in ("id", "metadata_license", "project_license", "name", "summary", "description"):
        assert component.find(tag) is not None, tag
    assert component.findtext("id") == APP_ID
    assert component.findtext("metadata_license") in ("CC0-1.0", "FSFAP", "MIT")
    with (ROOT / "pyproject.toml").open("rb") as file:
        project = tomllib.load(file)["project"]
    assert component.findtext("project_license") == project["license"]
    summary = component.findtext("summary") or ""
    assert 0 < len(summary) <= 90 and not summary.endswith(".")
    paragraphs = component.findall("description/p")
    assert paragraphs and len(" ".join((paragraphs[0].text or "").split())) >= 80
    developer = component.find("developer")
    assert developer is not None and developer.get("id") and developer.findtext("name")
    assert component.find("content_rating[@type='oars-1.1']") is not None


def test_the_metainfo_agrees_with_the_desktop_file() -> None:
    component, entry = _metainfo(), desktop_entry()
    launchable = component.find("launchable")
    assert launchable is not None and launchable.get("type") == "desktop-id"
    assert launchable.text == DESKTOP.name
    assert component.findtext("name") == entry["Name"]
    assert component.findtext("summary") == entry["Comment"]
    icon = component.find("icon")
    assert icon is not None and icon.get("type") == "stock" and icon.text == entry["Icon"]
    assert component.findtext("provides/binary") == entry["Exec"].split()[0]
    assert [c.text for c in component.findall("categories/category")] == _list(entry["Categories"])
    assert [k.text for k in component.findall("keywords/keyword")] == _list(entry["Keywords"])


def test_the_metainfo_links_the_project_and_its_screenshots() -> None:
    component = _metainfo()
    urls = {url.get("type"): url.text or "" for url in component.findall("url")}
    assert len(urls) == len(component.findall("url")), "one url of each type"
    homepage = re.fullmatch(r"https://github\.com/([\w.-]+)/([\w.-]+)", urls.get("homepage", ""))
    assert homepage, urls
    owner, repo = homepage.groups()
    assert urls["bugtracker"] == f"{urls['homepage']}/issues"
    assert urls["vcs-browser"] == urls["homepage"]
    # The component ID is the homepage's reverse DNS (io.github.<owner>).
    assert APP_ID.lower().startswith(f"io.github.{owner}.".lower())

    screenshots = component.findall("screenshots/screenshot")
    assert screenshots
    assert [s.get("type") for s in screenshots].count("default") == 1
    assert screenshots[0].get("type") == "default"
    raw = re.compile(
        rf"https://raw\.githubusercontent\.com/{re.escape(owner)}/{re.escape(repo)}/main/"
        r"(packaging/[\w.-]+\.png)"
    )
    shown = []
    for screenshot in screenshots:
        caption = screenshot.findtext("caption") or ""
        assert 0 < len(caption) <= 100 and not caption.endswith("."), caption
        (image,) = screenshot.findall("image")
        assert image.get("type") == "source"
        match = raw.fullmatch(image.text or "")
        assert match, image.text
        png = ROOT / match.group(1)
        assert png.is_file(), png  # the file the URL serves is in this checkout
        assert (int(image.get("width", 0)), int(image.get("height", 0))) == _png_size(png)
        shown.append(png.name)
    assert len(set(shown)) == len(shown)


def test_the_releases_end_at_this_version_newest_first() -> None:
    releases = _metainfo().findall("releases/release")
    assert releases
    with (ROOT / "pyproject.toml").open("rb") as file:
        version = tomllib.load(file)["project"]["version"]
    assert releases[0].get("version") == version
    versions = [_version(release.get("version", "")) for release in releases]
    dates = [dt.date.fromisoformat(release.get("date", "")) for release in releases]
    assert versions == sorted(versions, reverse=True) and len(set(versions)) == len(versions)
    assert dates == sorted(dates, reverse=True)
    for release in releases:
        assert release.findall("description/p"), release.get("version")


def test_appstreamcli_has_nothing_unexpected_to_say() -> None:
    validator = shutil.which("appstreamcli")
    if validator is None:
        pytest.skip("appstreamcli is not installed (the checks above still ran)")
    done = subprocess.run(
        [validator, "validate", "--no-net", "--pedantic", str(METAINFO)],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    issues = []
    for line in done.stdout.splitlines():
        match = _ISSUE.match(line)
        if match:
            issues.append((match.group(2), match.group(3) or ""))
        else:  # nothing else but the verdict and blank lines
            assert not line.strip() or "Validation was successful" in line, line
    unexpected = [issue for issue in issues if issue not in KNOWN_APPSTREAM_ISSUES]
    assert not unexpected, done.stdout
