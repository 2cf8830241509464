"""The conversion rules, in the order the pipeline runs them.

Statement- and module-level rules come first, so they see torch code as the user wrote it;
the table-driven API rule runs last among the rewriters.
"""
from .api_calls import ApiCallRule

RULES = [
    ApiCallRule,
]

__all__ = ["RULES"]
