"""How a call of the learner's code can fail, as the grader's stand-ins report it.

Raised by :mod:`autograder.execute.run` when a worker answers, and turned into
verdicts by :mod:`autograder.compare.verdicts`. They belong to the comparison, not
to the execution, so that the verdicts, which ``check`` uses in the learner's
kernel too, import nothing of the machinery that starts workers.
"""

from __future__ import annotations

import builtins

# The exception types the grader names as such. A worker reports the type of what the
# learner's code raised as a string, and a class can be given any name, a hidden test's
# inputs included: any other type is "Exception" to the course's tests and verdicts.
KNOWN_EXCEPTIONS: frozenset[str] = frozenset(
    name
    for name, value in vars(builtins).items()
    if isinstance(value, type) and issubclass(value, BaseException)
) | {
    # jax.errors, and the errors autograder.compare.explain points to
    "ConcretizationTypeError",
    "JAXIndexError",
    "JAXTypeError",
    "JaxRuntimeError",
    "KeyReuseError",
    "NonConcreteBooleanIndexError",
    "TracerArrayConversionError",
    "TracerBoolConversionError",
    "TracerIntegerConversionError",
    "UnexpectedTracerError",
    "XlaRuntimeError",
    "FrozenInstanceError",
    # what the worker itself reports, and the kinds of a watcher's complaint
    "UnsendableResult",
    "WireError",
    "WatcherError",
    "HelperMissing",
    "HelperNotJitted",
    "HelperStatic",
    "NotANotebookFunction",
    "WatchUntrusted",
}


def known_type(name: str) -> str:
    """``name`` where it is one of :data:`KNOWN_EXCEPTIONS`, else "Exception"."""
    return name if name in KNOWN_EXCEPTIONS else "Exception"


class LearnerError(Exception):
    """The learner's code raised; ``info`` has its type, message and traceback.

    ``type`` is the type's name where it is one of :data:`KNOWN_EXCEPTIONS`, else
    "Exception": a course test may put it into a hidden test's message. The name
    the worker sent is ``learner_type``, for what a visible test may show.
    """

    def __init__(self, function: str, info: dict[str, str]) -> None:
        self.learner_type = str(info.get("type", "Exception"))
        self.type = known_type(self.learner_type)
        super().__init__(f"{function} raised {self.type}")
        self.function = function
        self.message = str(info.get("message", ""))
        self.traceback = str(info.get("traceback", ""))


class WorkerTrouble(BaseException):
    """The worker stopped a call (a timeout) or ended (a crash): the test ends with it.

    Not an :class:`Exception`: a hidden test may catch what the learner's function raises
    (``except Exception``, to name the idea in its own assertion), and a timeout or a
    crash caught there would be reported as a wrong answer, with the test going on to
    call a worker that had to be started again. (A missing function stays an
    ``Exception``: a test that catches it words the failure itself, and an untouched
    exercise whose cell stops before it defines the function is ``failed``.)
    """


class CallTimeout(WorkerTrouble):
    """A call did not return within ``seconds``; ``why`` says how that limit was set."""

    def __init__(self, seconds: float = 0.0, why: str = "") -> None:
        super().__init__(f"no return within {seconds:g} s")
        self.seconds = seconds
        self.why = why


class WorkerCrashed(WorkerTrouble):
    """The worker process ended while it had work to do."""


class FunctionMissing(Exception):
    """The notebook does not define the function; ``names`` lists what it does define."""

    def __init__(self, function: str, names: list[str]) -> None:
        super().__init__(function)
        self.function = function
        self.names = names
