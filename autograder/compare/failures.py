"""How a call of the learner's code can fail, as the grader's stand-ins report it.

Raised by :mod:`autograder.execute.run` when a worker answers, and turned into
verdicts by :mod:`autograder.compare.verdicts`. They belong to the comparison, not
to the execution, so that the verdicts, which ``check`` uses in the learner's
kernel too, import nothing of the machinery that starts workers.
"""

from __future__ import annotations


class LearnerError(Exception):
    """The learner's code raised; ``info`` has its type, message and traceback."""

    def __init__(self, function: str, info: dict[str, str]) -> None:
        super().__init__(f"{function} raised {info.get('type')}: {info.get('message')}")
        self.function = function
        self.type = str(info.get("type", "Exception"))
        self.message = str(info.get("message", ""))
        self.traceback = str(info.get("traceback", ""))


class CallTimeout(Exception):
    """A call did not return within ``seconds``; ``why`` says how that limit was set."""

    def __init__(self, seconds: float = 0.0, why: str = "") -> None:
        super().__init__(f"no return within {seconds:g} s")
        self.seconds = seconds
        self.why = why


class WorkerCrashed(Exception):
    """The worker process ended while it had work to do."""


class FunctionMissing(Exception):
    """The notebook does not define the function; ``names`` lists what it does define."""

    def __init__(self, function: str, names: list[str]) -> None:
        super().__init__(function)
        self.function = function
        self.names = names
