"""The installed distribution's version, read on first use of `routescope.__version__`."""

from importlib.metadata import version

__version__ = version("routescope")
