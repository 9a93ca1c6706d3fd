"""What the book itself uses.

What the lessons call at build time: tree diagrams (of sharded trees too) and quiz
questions. Both render
to self-contained HTML, so a page shows the same thing in the built book, in
JupyterLab and in a browser with the dark theme.

Beside them: :mod:`booktools.extension`, the book's Sphinx extension, with the
progress table of :mod:`booktools.progress_page`, and :mod:`booktools.serve`, the
server of ``./course serve``.
"""

from booktools.diagrams import draw_sharded_tree, draw_tree
from booktools.quiz import quiz

__all__ = ["draw_sharded_tree", "draw_tree", "quiz"]
