"""PySide6-Essentials 6.12.0 on Python 3.11 decrements None's refcount on every void call and
aborts the interpreter after a few thousand calls. The pinned version must not."""

import sys

from PySide6.QtWidgets import QLabel


def test_void_qt_calls_leave_the_refcount_of_none_alone(qapp) -> None:  # type: ignore[no-untyped-def]
    label = QLabel()
    before = sys.getrefcount(None)
    for index in range(200_000):
        label.setText("x" if index % 2 else "y")
    drift = sys.getrefcount(None) - before
    assert abs(drift) < 1_000, f"None's refcount drifted by {drift} over 200k void calls"
