"""Deep research (seed 003): a multi-attempt web research loop with quality scores, safe
fetching and search providers. Work in progress: the modules are built and tested one by one."""
