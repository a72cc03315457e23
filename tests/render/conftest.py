"""The render tests share the records tests' rows and summary."""

from tests.records.conftest import eval_dir, make_row, summary, summary_document

__all__ = ["eval_dir", "make_row", "summary", "summary_document"]
