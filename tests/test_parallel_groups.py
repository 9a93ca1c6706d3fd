"""./course test runs in several workers; tests sharing a costly fixture share one."""

from __future__ import annotations

from parallel_groups import xdist_groups


def test_each_file_is_a_group_of_its_own_when_it_shares_no_costly_fixture():
    groups = xdist_groups([("test_a.py", ["tmp_path"]), ("test_b.py", ["course"])])
    assert groups == {"test_a.py": "test_a.py", "test_b.py": "test_b.py"}


def test_files_using_the_same_costly_fixture_are_one_group():
    groups = xdist_groups([("test_b.py", ["built"]), ("test_a.py", ["built"]), ("test_c.py", [])])
    assert groups["test_a.py"] == groups["test_b.py"] == "test_a.py"
    assert groups["test_c.py"] == "test_c.py"


def test_a_file_using_two_costly_fixtures_joins_their_groups():
    groups = xdist_groups(
        [
            ("test_a.py", ["graded_cases"]),
            ("test_b.py", ["graded_cases", "built"]),
            ("test_c.py", ["built"]),
        ]
    )
    assert set(groups.values()) == {"test_a.py"}


def test_a_file_that_rebuilds_the_book_runs_with_the_book_s_readers():
    groups = xdist_groups([("test_course_script.py", []), ("test_links.py", ["built"])])
    assert groups["test_course_script.py"] == groups["test_links.py"]


def test_one_test_of_a_file_is_enough_to_bring_the_whole_file():
    groups = xdist_groups(
        [
            ("test_a.py", []),
            ("test_a.py", ["graded_solutions"]),
            ("test_b.py", ["graded_solutions"]),
        ]
    )
    assert groups["test_a.py"] == groups["test_b.py"]
