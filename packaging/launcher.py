"""The frozen bundle's entry point: `routescope-gui` as the wheel's script runs it."""

import multiprocessing
import sys

from routescope_gui.app import main

if __name__ == "__main__":
    # Batches run in worker processes; a frozen child must not start the window again.
    multiprocessing.freeze_support()
    sys.exit(main())
