"""The sandbox served as GitHub's API: REST and GraphQL over loopback HTTP.

:mod:`.types` holds the request/response shapes shared by the server and the two API
implementations (:mod:`.rest`, :mod:`.graphql`); :mod:`.server` is the HTTP server (plain,
Enterprise Server layout, forward proxy and TLS interception); :mod:`.registry` maps item tokens
to their worlds. See ``docs/sandbox.md``.
"""
