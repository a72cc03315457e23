"""One attempt of one item: prompt, adapter call under a deadline, judgement, row, transcript,
and which failures are retried. It knows the session only through
:class:`~.context.AttemptContext`."""
