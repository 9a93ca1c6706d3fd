"""What test cells import to watch a learner's code run: a public name kept stable for the
notebooks; the watchers live in :mod:`autograder.learner.watchers`."""

from autograder.learner.watchers import (
    arguments_after,
    count_traces,
    describe,
    kept_for_backward,
    leaf_shardings,
    leaf_types,
    round_trip,
    watch_calls,
    watch_calls_and_result,
)

__all__ = [
    "arguments_after",
    "count_traces",
    "describe",
    "kept_for_backward",
    "leaf_shardings",
    "leaf_types",
    "round_trip",
    "watch_calls",
    "watch_calls_and_result",
]
