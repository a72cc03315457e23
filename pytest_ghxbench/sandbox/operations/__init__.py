"""What the sandbox's API does to its world: one operation per mutating capability.

The API's handlers (REST routes, GraphQL mutations) perform a change by naming the capability
it is (``issue.close``) and passing that capability's input; :mod:`.registry` validates the
input against the ghx capability's schema and runs the operation the modules of this package
register with :func:`~pytest_ghxbench.sandbox.operations.registry.operation`.
"""
