"""What test cells import to watch a learner's code run: a public name kept stable for the
notebooks; the watchers live in :mod:`autograder.learner.watchers`."""

from autograder.learner.watchers import count_traces, describe, round_trip, watch_calls

__all__ = ["count_traces", "describe", "round_trip", "watch_calls"]
