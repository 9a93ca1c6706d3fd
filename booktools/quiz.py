"""Questions that answer in the page: the learner picks a choice and sees at once
whether it is right, and why.

Written here rather than taken from a quiz package because the page must work as a
static site with no server and no network, remember answers between visits
(``localStorage``, keyed by the question's ``key``), and follow the book's light
and dark themes. The behaviour lives in ``book/_static/quiz.js`` and the look in
``book/_static/quiz.css``; this module only writes the markup.

A notebook has neither: outside the book's build (the chapter as a notebook, in any
Jupyter or Colab) a question is its choices and the answer behind "Show the answer".
The book's build says where it runs by :data:`IN_THE_BOOK` in the environment, which
the kernels that run its chapters inherit (:mod:`booktools.extension` sets it).
"""

from __future__ import annotations

import html
import json
import os
import re
from collections.abc import Sequence

from IPython.display import HTML

# set to "1" in the environment of the book's build
IN_THE_BOOK = "PYTREES_BOOK_BUILD"


class QuizError(ValueError):
    """A question whose answer is not one of its choices, or that has too few choices."""


def quiz_html(
    key: str,
    question: str,
    choices: Sequence[str],
    answer: int | str,
    explanation: str,
    section: tuple[str, str] | None = None,
    new: str = "",
) -> str:
    """The markup of one question. ``answer`` is the right choice's index or its text;
    ``section``, a ``(title, address)`` pair such as ``("Dicts sort their keys",
    "#dicts-sort-their-keys")``, adds a link to reread it under the explanation;
    ``new`` is kept for the book's question audit (see :func:`quiz`)."""
    choices, index = _checked(key, choices, answer)
    buttons = "".join(
        f'<li><button type="button" class="pt-quiz-choice" data-choice="{i}">'
        f"<code>{html.escape(text)}</code></button></li>"
        for i, text in enumerate(choices)
    )
    return (
        f'<div class="pt-quiz" data-key="{html.escape(key)}" data-answer="{index}"'
        + (f' data-new="{html.escape(new)}"' if new else "")
        + ">"
        f'<p class="pt-quiz-question">{html.escape(question)}</p>'
        f'<ol class="pt-quiz-choices" type="A">{buttons}</ol>'
        f'<div class="pt-quiz-feedback" hidden><p class="pt-quiz-verdict" role="status"></p>'
        f'<p class="pt-quiz-explanation">{html.escape(explanation)}{_reread(section)}</p>'
        f'<button type="button" class="pt-quiz-retry">Try again</button></div>'
        f"<noscript><p>{html.escape(_stated_answer(choices[index], explanation))}</p>"
        f"</noscript></div>"
    )


def _notebook_html(
    key: str, question: str, choices: list[str], index: int, explanation: str, section: str | None
) -> str:
    """The markup of one question where no script of the book's runs: the question, its
    choices, and the answer (``choices[index]``) with its explanation in a ``<details>``
    the reader opens. The ``section`` to reread is named by its title, not linked: its
    address is the book page's."""
    listed = "".join(f"<li><code>{html.escape(text)}</code></li>" for text in choices)
    reread = f" Reread <em>{html.escape(section)}</em>." if section else ""
    return (
        f'<div class="pt-quiz-notebook" data-key="{html.escape(key)}">'
        f"<p>{html.escape(question)}</p>"
        f'<ol type="A">{listed}</ol>'
        f"<details><summary>Show the answer</summary>"
        f"<p>{html.escape(_stated_answer(choices[index], explanation))}{reread}</p>"
        f"</details></div>"
    )


def _checked(key: str, choices: Sequence[str], answer: int | str) -> tuple[list[str], int]:
    """The choices as text and the right one's index; QuizError for a question that
    cannot be asked."""
    choices = [str(choice) for choice in choices]
    if len(choices) < 2:
        raise QuizError(f"{key}: a question needs at least two choices")
    if len(set(choices)) != len(choices):
        raise QuizError(f"{key}: two choices read the same: {choices}")
    index = answer if isinstance(answer, int) else _index_of(key, str(answer), choices)
    if not 0 <= index < len(choices):
        raise QuizError(f"{key}: answer {answer!r} is not one of the choices")
    return choices, index


def _stated_answer(answer: str, explanation: str) -> str:
    """The answer and its explanation as one text, for a page without scripts. An
    explanation that opens with the answer ("Four. ..." for "Four", "Three: ..." for
    "Three times") already states it, so the answer is not said a second time."""
    opening = re.split(r"[.,:;]", explanation, maxsplit=1)[0].strip().lower()
    said = answer.strip().lower()
    if opening and (said == opening or said.startswith(opening + " ")):
        return f"Answer: {explanation}"
    return f"Answer: {answer}. {explanation}"


def _reread(section: tuple[str, str] | None) -> str:
    if section is None:
        return ""
    title, address = section
    return (
        f' <span class="pt-quiz-reread">Reread <a href="{html.escape(address)}">'
        f"{html.escape(title)}</a>.</span>"
    )


def _index_of(key: str, answer: str, choices: list[str]) -> int:
    if answer not in choices:
        raise QuizError(f"{key}: the real answer {answer!r} is not among {json.dumps(choices)}")
    return choices.index(answer)


def quiz(
    key: str,
    question: str,
    choices: Sequence[str],
    answer: int | str,
    explanation: str,
    section: tuple[str, str] | None = None,
    new: str = "",
) -> HTML:
    """Show a multiple-choice question that answers in the page.

    For "predict the output", pass the real value as ``answer`` (for example
    ``repr(jax.tree.leaves(tree))``): the build fails if it is not one of ``choices``,
    so the page can never state a wrong answer. ``section`` is the ``(title,
    address)`` of the section whose rule decides the answer, linked under the
    explanation. ``new`` quotes the code of the question that no earlier cell shows,
    where every call it makes ran before (``booktools.question_audit`` checks the
    quote). In the book's build the question answers in the page; elsewhere (a
    notebook) it shows its choices, then the answer when asked.
    """
    if os.environ.get(IN_THE_BOOK) == "1":
        return HTML(quiz_html(key, question, choices, answer, explanation, section, new))
    listed, index = _checked(key, choices, answer)
    title = section[0] if section else None
    return HTML(_notebook_html(key, question, listed, index, explanation, title))
