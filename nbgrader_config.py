"""nbgrader's view of this repository: solutions/ is the source, exercises/ the release.

``nbgrader generate_assignment <chapter> --force --no-db`` run here rewrites
``exercises/<chapter>/`` from ``solutions/<chapter>/``.
"""

c = get_config()  # noqa: F821 - provided by nbgrader when it loads this file

c.CourseDirectory.source_directory = "solutions"
c.CourseDirectory.release_directory = "exercises"
c.ClearSolutions.code_stub = {"python": "# YOUR CODE HERE\nraise NotImplementedError()"}
