"""`make eval`: retrieval quality of the tool search on public catalogs (issue 11, §8).

Run as `python -m tests.eval.eval_toolsearch` from the checkout. Nothing here is a pytest test
(the file names do not match `test_*.py`, as in tests/bench), and nothing here runs in
`make test`.
"""

import os

# The query-time `matrix @ vector` must not wake a second OpenBLAS thread (issue 11, §7): set
# before anything in this package imports numpy.
for _name in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_name, "1")
