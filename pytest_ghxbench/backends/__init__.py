"""What the built-in backends (:mod:`pytest_ghxbench.sandbox`, :mod:`pytest_ghxbench.github`)
share, below them and below the adapters: the launchers that hand an item's processes their
secrets (:mod:`~pytest_ghxbench.backends.launcher`) and lazily loaded backends
(:mod:`~pytest_ghxbench.backends.lazy`)."""
