"""The test session never touches the user's real cache, config or data folders."""

import tempfile
from pathlib import Path

import platformdirs


def test_user_folders_point_into_a_temporary_folder() -> None:
    temporary = Path(tempfile.gettempdir()).resolve()
    for folder in (
        platformdirs.user_cache_dir("routescope"),
        platformdirs.user_config_dir("routescope"),
        platformdirs.user_data_dir("routescope"),
    ):
        assert temporary in Path(folder).resolve().parents, folder
