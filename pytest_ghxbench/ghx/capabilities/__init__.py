"""The capabilities, one module per domain; each registers its handlers with
:func:`pytest_ghxbench.ghx.registry.capability`."""
