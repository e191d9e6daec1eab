import atexit
import os
import shutil
import tempfile

# Before any QApplication exists: without a display Qt aborts the interpreter.
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

# Hermetic: caches (the tool-search index and vectors), config and data of this process and of
# every process a test starts go to a temporary folder, never to the user's real ones.
_HOME = tempfile.mkdtemp(prefix="routescope-tests-")
atexit.register(shutil.rmtree, _HOME, ignore_errors=True)
for _variable in ("XDG_CACHE_HOME", "XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME"):
    os.environ[_variable] = os.path.join(_HOME, _variable.lower())
# The machine's offline research index without passage vectors: embedding the whole standard
# library takes minutes, once per fresh cache. The semantic path is tested over small corpora
# with `semantic=True` and a stand-in embedder (tests/core/research/test_semantic.py), and
# measured with the real model in `make eval` and `make bench`.
os.environ["ROUTESCOPE_RESEARCH_SEMANTIC"] = "0"

from hypothesis import settings  # noqa: E402

# `pytest --hypothesis-profile=thorough` for a long hunt; the default keeps `make test` quick.
settings.register_profile("default", max_examples=250, deadline=None)
settings.register_profile("thorough", max_examples=5_000, deadline=None)
settings.load_profile("default")
