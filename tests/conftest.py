import os

# Before any QApplication exists: without a display Qt aborts the interpreter.
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from hypothesis import settings

# `pytest --hypothesis-profile=thorough` for a long hunt; the default keeps `make test` quick.
settings.register_profile("default", max_examples=250, deadline=None)
settings.register_profile("thorough", max_examples=5_000, deadline=None)
settings.load_profile("default")
