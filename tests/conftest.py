import os

# Before any QApplication exists: without a display Qt aborts the interpreter.
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
