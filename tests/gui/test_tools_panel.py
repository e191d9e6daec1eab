import json
import threading
from pathlib import Path

from routescope_gui import MainWindow


def window_with_catalog(qtbot):  # type: ignore[no-untyped-def]
    window = MainWindow()
    qtbot.addWidget(window)
    window.show()
    qtbot.waitUntil(lambda: window.tools_controller.search is not None, timeout=30_000)
    return window


def test_typing_ranks_tools_with_every_signal_off_the_ui_thread(qtbot, qloop) -> None:  # type: ignore[no-untyped-def]
    window = window_with_catalog(qtbot)
    controller = window.tools_controller
    threads: list[int] = []
    original = controller.search.embed_query  # type: ignore[union-attr]

    def spy(text: str):  # type: ignore[no-untyped-def]
        threads.append(threading.get_ident())
        return original(text)

    controller.search.embed_query = spy  # type: ignore[union-attr, method-assign]
    with qtbot.waitSignal(controller.searched, timeout=20_000):
        window.set_prompt("find files named config.yaml")
    qtbot.waitUntil(
        lambda: (
            window.tools_panel.result is not None
            and window.tools_panel.result.results[0].signals.vector is not None
        ),
        timeout=20_000,
    )
    panel = window.tools_panel
    assert threads and threading.get_ident() not in threads
    top = panel.table.topLevelItem(0)
    assert top is not None and top.text(1) == "files.find"
    assert top.text(3).startswith("#1") and top.text(4).startswith("#")
    assert "1/(60+1)" in top.toolTip(5)
    fields = [top.child(i).text(1).strip() for i in range(top.childCount())]
    assert "tool_name" in fields and "rerank" in fields
    assert "file_discovery" in panel.header.text()


def test_sliders_rerank_without_embedding_again(qtbot, qloop) -> None:  # type: ignore[no-untyped-def]
    window = window_with_catalog(qtbot)
    controller, panel = window.tools_controller, window.tools_panel
    with qtbot.waitSignal(controller.searched, timeout=20_000):
        window.set_prompt("what changed in my repo")
    qtbot.waitUntil(lambda: controller.vector is not None, timeout=20_000)
    calls: list[str] = []
    controller.search.embed_query = lambda text: calls.append(text)  # type: ignore[union-attr, method-assign, assignment, func-returns-value]
    with qtbot.waitSignal(controller.searched, timeout=5_000):
        panel.rrf.setValue(5)
    assert calls == []
    assert panel.result is not None and all(
        t.k == 5 for h in panel.result.results for t in h.signals.rrf
    )
    with qtbot.waitSignal(controller.searched, timeout=5_000):
        panel.strategy.setCurrentText("exact")
    assert panel.result.strategy == "exact"


def test_why_not_pins_any_tool(qtbot, qloop) -> None:  # type: ignore[no-untyped-def]
    window = window_with_catalog(qtbot)
    with qtbot.waitSignal(window.tools_controller.searched, timeout=20_000):
        window.set_prompt("find files named config.yaml")
    window.tools_panel.pin.setCurrentText("git.status")
    text = window.tools_panel.pin_text.text()
    assert "git.status" in text and "keyword" in text and "filter excludes" in text


def test_open_a_json_catalog(qtbot, qloop, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    window = window_with_catalog(qtbot)
    path = tmp_path / "tools.json"
    path.write_text(
        json.dumps(
            [
                {
                    "tool_name": "pets.feed",
                    "description": "Feed the cat",
                    "routing_keywords": ["cat", "food"],
                },
                {
                    "tool_name": "pets.walk",
                    "description": "Walk the dog",
                    "routing_keywords": ["dog"],
                },
            ]
        ),
        encoding="utf-8",
    )
    with qtbot.waitSignal(window.tools_controller.ready, timeout=30_000):
        window.tools_controller.load(path)
    assert "2 tools from tools.json" in window.tools_panel.status.text()
    with qtbot.waitSignal(window.tools_controller.searched, timeout=20_000):
        window.set_prompt("feed my cat")
    assert window.tools_panel.table.topLevelItem(0).text(1) == "pets.feed"  # type: ignore[union-attr]
    bad = tmp_path / "bad.json"
    bad.write_text("{", encoding="utf-8")
    with qtbot.waitSignal(window.tools_controller.ready, timeout=10_000):
        window.tools_controller.load(bad)
    assert "cannot load catalog" in window.tools_panel.status.text()
