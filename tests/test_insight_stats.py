"""The numbers of a class's page, computed from the report's structured fields."""

from __future__ import annotations

import pytest

from autograder.load.handed_in import NotebookFile
from autograder.report.insight.stats import (
    DISCRIMINATION_LEARNERS,
    FunctionStats,
    class_insight,
    function_stats,
    group_of,
    pseudonym,
    reteach_sections,
)
from autograder.report.model import (
    ExerciseResult,
    Report,
    StudentResult,
    TestPointer,
    TestResult,
)

CHILDREN = TestPointer("aux_data#children", "aux_data", "Children and aux_data", "children")
PREFIX = TestPointer("trees-of-different-structures", "mapping", "The first tree", "prefix")


def _exercise(
    name: str,
    outcomes: list[tuple[str, float]],
    pointer: TestPointer | None = None,
    notebook: str = "aux_data.ipynb",
    hints: int = 0,
    message: str = "",
    hidden: bool = True,
) -> ExerciseResult:
    """A function of ``notebook`` whose tests ended as ``(outcome, points of 1)`` each."""
    tests = [
        TestResult(
            f"{name}_{index}",
            outcome,
            earned,
            1.0,
            message="" if outcome == "passed" else message,
            hidden=hidden,
            pointer=None if outcome == "passed" else pointer,
        )
        for index, (outcome, earned) in enumerate(outcomes)
    ]
    return ExerciseResult(notebook, name, float(len(outcomes)), tests, hints_opened=hints)


def test_a_function_with_some_points_but_not_all_earned_part():
    assert group_of(_exercise("f", [("passed", 1), ("failed", 0)])) == "partial"


@pytest.mark.parametrize(
    ("outcome", "group"),
    [
        ("failed", "failed"),
        ("error", "raised"),
        ("memory", "raised"),
        ("crashed", "raised"),
        ("timeout", "timeout"),
        ("missing", "absent"),
        ("corrupt", "absent"),
    ],
)
def test_a_function_with_no_points_is_grouped_by_its_status(outcome, group):
    assert group_of(_exercise("f", [(outcome, 0)])) == group


def test_a_learner_counts_once_per_section_however_many_tests_pointed_there():
    ada = StudentResult(
        "ada",
        [
            _exercise("f", [("failed", 0), ("failed", 0)], CHILDREN),
            _exercise("g", [("failed", 0)], CHILDREN),
        ],
    )
    (section,) = reteach_sections([ada])
    assert (section.learners, section.functions) == (1, [("f", 1), ("g", 1)])


def test_sections_are_ordered_by_how_many_learners_they_sent_back():
    students = [
        StudentResult("ada", [_exercise("f", [("failed", 0)], PREFIX)]),
        StudentResult("bob", [_exercise("f", [("failed", 0)], CHILDREN)]),
        StudentResult("cy", [_exercise("f", [("error", 0)], CHILDREN)]),
    ]
    assert [(s.anchor, s.learners) for s in reteach_sections(students)] == [
        ("children", 2),
        ("prefix", 1),
    ]


def test_a_passed_test_or_one_without_a_pointer_sends_no_one_back():
    students = [StudentResult("ada", [_exercise("f", [("passed", 1), ("failed", 0)])])]
    assert reteach_sections(students) == []


def test_the_example_message_is_a_hidden_tests_own_words_before_a_visible_one():
    students = [
        StudentResult(
            "ada", [_exercise("f", [("failed", 0)], CHILDREN, message="mine", hidden=False)]
        ),
        StudentResult("bob", [_exercise("f", [("failed", 0)], CHILDREN, message="course")]),
    ]
    assert reteach_sections(students)[0].example == "course"


def test_functions_are_hardest_first_among_those_who_handed_them_in():
    students = [
        StudentResult(
            name,
            [
                _exercise("easy", [(easy, 0)]),
                _exercise("hard", [(hard, 0)]),
            ],
        )
        for name, easy, hard in [
            ("ada", "passed", "failed"),
            ("bob", "missing", "passed"),
            ("cy", "missing", "failed"),
        ]
    ]
    assert [f.name for f in function_stats(students, dict.fromkeys(("ada", "bob", "cy"), 0.0))] == [
        "hard",
        "easy",
    ]


def test_discrimination_is_the_correlation_of_the_functions_scores_with_the_totals():
    # scores on f: 0, 1, 2 of 2 (0, 50, 100 %); totals 10, 20, 60 %: r = 0.9449
    students = [
        StudentResult(name, [_exercise("f", [("passed", 1)] * k + [("failed", 0)] * (2 - k))])
        for name, k in [("ada", 0), ("bob", 1), ("cy", 2)]
    ]
    (stats,) = function_stats(students, {"ada": 10.0, "bob": 20.0, "cy": 60.0})
    assert stats.discrimination == pytest.approx(94.49, abs=0.01)
    assert not stats.flagged


def test_a_function_everyone_scores_alike_on_has_no_discrimination():
    students = [StudentResult(n, [_exercise("f", [("passed", 1)])]) for n in ("ada", "bob")]
    (stats,) = function_stats(students, {"ada": 10.0, "bob": 90.0})
    assert stats.discrimination is None and not stats.flagged


def _weaker_pass(learners: int) -> FunctionStats:
    """A function that the weaker half of ``learners`` passes and the stronger half fails."""
    students = [
        StudentResult(f"l{i}", [_exercise("f", [("passed", 1) if i % 2 else ("failed", 0)])])
        for i in range(learners)
    ]
    (stats,) = function_stats(students, {f"l{i}": 10.0 if i % 2 else 90.0 for i in range(learners)})
    return stats


def test_a_function_the_weaker_learners_pass_is_flagged():
    stats = _weaker_pass(DISCRIMINATION_LEARNERS)
    assert stats.discrimination == pytest.approx(-100.0) and stats.flagged


def test_with_too_few_learners_who_started_a_function_its_discrimination_flags_nothing():
    stats = _weaker_pass(DISCRIMINATION_LEARNERS - 1)
    assert stats.too_few_for_discrimination and not stats.flagged


def test_hints_opened_are_counted_against_passing():
    students = [
        StudentResult("ada", [_exercise("f", [("passed", 1)], hints=2)]),
        StudentResult("bob", [_exercise("f", [("failed", 0)], hints=1)]),
        StudentResult("cy", [_exercise("f", [("passed", 1)])]),
    ]
    (stats,) = function_stats(students, dict.fromkeys(("ada", "bob", "cy"), 0.0))
    assert (stats.hints_opened_by, stats.passed_with_hints, stats.passed_without_hints) == (2, 1, 1)


def test_chapter_scores_and_totals_are_percent_per_learner():
    ada = StudentResult(
        "ada",
        [
            _exercise("f", [("passed", 1), ("failed", 0)]),
            _exercise("g", [("passed", 1)], notebook="mapping.ipynb"),
        ],
    )
    insight = class_insight(Report([ada], "process"))
    assert insight.totals == pytest.approx([200 / 3])
    assert {c.chapter: c.scores for c in insight.chapters} == {
        "aux_data": [50.0],
        "mapping": [100.0],
    }


def test_anonymised_rows_show_a_stable_pseudonym_but_keep_the_name_for_feedback():
    report = Report([StudentResult("ada", [_exercise("f", [("failed", 0)])])], "process")
    (row,) = class_insight(report, anonymise=True).rows
    assert row.name == pseudonym("ada") != "ada" and row.student == "ada"
    assert pseudonym("ada") == pseudonym("ada") != pseudonym("bob")
    assert row.missed == ["f"]


def test_a_chapter_not_handed_in_has_no_score_in_it_but_counts_in_the_total():
    ada = StudentResult(
        "ada",
        [
            _exercise("f", [("passed", 1)]),
            _exercise("g", [("missing", 0)], notebook="mapping.ipynb"),
        ],
    )
    insight = class_insight(Report([ada], "process"))
    assert {c.chapter: c.scores for c in insight.chapters} == {"aux_data": [100.0], "mapping": []}
    assert insight.totals == [50.0]


def test_median_and_discrimination_count_only_those_who_handed_it_in():
    students = [
        StudentResult("ada", [_exercise("f", [("passed", 1)])]),
        StudentResult("bob", [_exercise("f", [("failed", 0)])]),
        StudentResult("cy", [_exercise("f", [("missing", 0)])]),
    ]
    (stats,) = function_stats(students, {"ada": 90.0, "bob": 10.0, "cy": 0.0})
    assert (stats.median, stats.mean_percent, stats.started) == (0.5, 50.0, 2)
    assert stats.discrimination == pytest.approx(100.0)


def test_a_section_says_what_happened_by_kind_and_by_the_errors_idea():
    error = TestResult("t", "error", 0.0, 1.0, "boom", kind="error", pointer=PREFIX)
    students = [
        StudentResult("ada", [ExerciseResult("mapping.ipynb", "f", 1.0, [error])]),
        StudentResult("bob", [_exercise("g", [("failed", 0)], PREFIX, notebook="mapping.ipynb")]),
    ]
    for student in students[1:]:
        student.exercises[0].tests[0].kind = "failed-check"
    (section,) = reteach_sections(students)
    assert section.causes == [
        ("failed a check", 1),
        ("raised trees-of-different-structures", 1),
    ]


# Learners who have not started a function, or not handed it in, are counted apart.


def test_a_function_not_started_is_grouped_apart_from_failed():
    assert group_of(_exercise("f", [("not-started", 0)])) == "not-started"


def test_pass_rates_count_only_the_learners_who_started_the_function():
    students = [
        StudentResult("ada", [_exercise("f", [("passed", 1)])]),
        StudentResult("bob", [_exercise("f", [("failed", 0)])]),
        StudentResult("cy", [_exercise("f", [("not-started", 0)])]),
        StudentResult("dee", [_exercise("f", [("missing", 0)])]),
    ]
    (stats,) = function_stats(students, dict.fromkeys(("ada", "bob", "cy", "dee"), 0.0))
    assert (stats.learners, stats.started) == (4, 2)
    assert (stats.rate("passed"), stats.rate("failed")) == (0.5, 0.5)
    assert (stats.counts["not-started"], stats.counts["absent"]) == (1, 1)


def test_a_function_few_have_reached_is_not_ranked_hardest():
    # f: the one learner who started it passed; g: two of three passed
    students = [
        StudentResult(name, [_exercise("f", [(f, 0)]), _exercise("g", [(g, 0)])])
        for name, f, g in [
            ("ada", "passed", "passed"),
            ("bob", "not-started", "failed"),
            ("cy", "not-started", "passed"),
        ]
    ]
    ranked = function_stats(students, dict.fromkeys(("ada", "bob", "cy"), 0.0))
    assert [f.name for f in ranked] == ["g", "f"]


def test_functions_no_learner_started_come_after_every_function_someone_started():
    students = [
        StudentResult(name, [_exercise("f", [("passed", 1)]), _exercise("g", [("not-started", 0)])])
        for name in ("ada", "bob")
    ]
    ranked = function_stats(students, dict.fromkeys(("ada", "bob"), 1.0))
    assert [f.name for f in ranked] == ["f", "g"]


def test_a_section_to_reteach_counts_the_learners_who_started_its_functions():
    students = [
        StudentResult("ada", [_exercise("f", [("failed", 0)], CHILDREN)]),
        StudentResult("bob", [_exercise("f", [("passed", 1)])]),
        StudentResult("cy", [_exercise("f", [("not-started", 0)])]),
    ]
    (section,) = reteach_sections(students)
    assert (section.learners, section.started) == (1, 2)


def test_a_chapter_counts_who_handed_it_in_who_started_it_and_their_mean():
    students = [
        StudentResult("ada", [_exercise("f", [("passed", 1)]), _exercise("g", [("failed", 0)])]),
        StudentResult(
            "bob", [_exercise("f", [("passed", 1)]), _exercise("g", [("not-started", 0)])]
        ),
        StudentResult(
            "cy", [_exercise("f", [("not-started", 0)]), _exercise("g", [("not-started", 0)])]
        ),
        StudentResult("dee", [_exercise("f", [("missing", 0)]), _exercise("g", [("missing", 0)])]),
    ]
    (chapter,) = class_insight(Report(students, "process")).chapters
    assert (chapter.learners, chapter.handed_in, chapter.started) == (4, 3, 2)
    assert chapter.mean == 50.0  # ada 50 %, bob 50 %; cy, who started nothing, is not counted


def test_a_chapter_whose_notebook_is_damaged_is_not_handed_in_as_its_functions_are_not():
    students = [
        StudentResult("ada", [_exercise("f", [("passed", 1)])]),
        StudentResult("bob", [_exercise("f", [("corrupt", 0)])]),
    ]
    insight = class_insight(Report(students, "process"))
    (chapter,) = insight.chapters
    (function,) = insight.functions
    assert chapter.handed_in == function.learners - function.counts["absent"] == 1


def test_a_learners_row_names_the_chapters_not_started_apart_from_what_did_not_pass():
    ada = StudentResult(
        "ada",
        [
            _exercise("f", [("failed", 0)]),
            _exercise("g", [("not-started", 0)]),
            _exercise("h", [("not-started", 0)], notebook="mapping.ipynb"),
        ],
    )
    (row,) = class_insight(Report([ada], "process")).rows
    assert (row.missed, row.not_started) == (["f"], ["mapping"])


DAMAGED = NotebookFile("work/custom_nodes.ipynb", "custom_nodes", False, "damaged: re-save it")


def test_a_learners_row_names_a_damaged_file_and_why():
    ada = StudentResult("ada", [_exercise("f", [("corrupt", 0)])], files=[DAMAGED])
    (row,) = class_insight(Report([ada], "process")).rows
    assert row.files == "not graded work/custom_nodes.ipynb (damaged: re-save it)"


def test_an_anonymised_learners_row_names_a_damaged_file_by_its_chapter_only():
    ada = StudentResult("ada", [_exercise("f", [("corrupt", 0)])], files=[DAMAGED])
    (row,) = class_insight(Report([ada], "process"), anonymise=True).rows
    assert row.files == "custom_nodes not graded (damaged: re-save it)"
