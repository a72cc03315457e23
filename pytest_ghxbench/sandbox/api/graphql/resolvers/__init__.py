"""The resolvers of the sandbox's GraphQL API: what each served type and field of GitHub's
schema answers from the world.

:mod:`.defs` is the registry (object and abstract types, fields, connections); the other
modules register GitHub's types into it when imported (:func:`.defs.load_types` imports them
all), and :mod:`.context` holds what every resolver is given: the world and the request's web
host.
"""
