"""Pytrees Hands-On's grader: runs each exercise's tests against a learner's notebook.

The learner's code runs in a separate, limited worker process; this package's own
process only compares plain data that the worker sends back.
"""

import sys

# nbformat's validator imports jsonschema, which builds an IRI grammar with lark
# when the optional rfc3987_syntax package is installed (Jupyter's packages pull
# it in): 0.8 s in every grading process, for a format no notebook schema uses.
sys.modules.setdefault("rfc3987_syntax", None)  # type: ignore[arg-type]
