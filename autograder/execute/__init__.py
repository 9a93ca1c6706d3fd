"""Execute: running a learner's notebook in a worker and calling its functions.

Holds both sides of the boundary: inside the sandbox, the zygote and the worker
(the only process that runs learner code); on the grader's side,
:class:`~autograder.execute.run.NotebookRun`; between them, length-prefixed
messages of plain data (:mod:`.channel`, :mod:`.wire`).

May import: :mod:`autograder.isolate`, :mod:`autograder.learner`,
:mod:`autograder.compare`, :mod:`autograder.store`, :mod:`autograder.load`.
"""
