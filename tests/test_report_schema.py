"""The JSON report's schema, ``autograder/report/report.schema.json``: a report the grader
writes fits it, each test's kind and pointer say what the test's message says, and the
schema names exactly the fields the report's classes write."""

from __future__ import annotations

import functools
import importlib
import json
import tomllib
from importlib.resources import files
from typing import Any

import pytest
from jsonschema import Draft202012Validator

from autograder.compare.verdicts import KINDS, OUTCOMES
from autograder.load.course import REPO_ROOT, SOLUTIONS
from autograder.load.handed_in import NotebookFile
from autograder.report.model import (
    ExerciseResult,
    NotebookNote,
    Report,
    StudentResult,
    TestPointer,
    TestResult,
)
from conftest import Graded, grade_with_cli, run_cli, write_variant


@functools.cache
def report_schema() -> dict[str, Any]:
    """The schema, read from the installed package as an instructor's script would."""
    return json.loads(files("autograder.report").joinpath("report.schema.json").read_text())


MAPPING = SOLUTIONS / "mapping" / "mapping.ipynb"
CASES = importlib.import_module("misconceptions.mapping").CASES


def case(misconception: str) -> str:
    """The source of the Mapping misconception case named ``misconception``."""
    return next(c["source"] for c in CASES if c["misconception"] == misconception)


# ones_from_shapes's hidden tests fail on an empty list, in a check whose message sends
# the learner to "Mapping over one tree"
HIDDEN_FAILURE = case("any sequence of ints is a shape, so an empty list is the scalar shape")
# jnp.ones is given a tuple of shapes in a visible test: a TypeError the course explains
EXPLAINED_ERROR = case("every tuple is a shape, a tuple of shapes too")


@pytest.fixture(scope="module")
def graded(tmp_path_factory: pytest.TempPathFactory) -> Graded:
    """A class graded on Mapping: ada solved it, bea fails a hidden check, cid's code
    raises an error the course explains, and dan handed in no notebook."""
    root = tmp_path_factory.mktemp("schema")
    folder = root / "class"
    write_variant(MAPPING, folder / "ada" / MAPPING.name, {})
    write_variant(MAPPING, folder / "bea" / MAPPING.name, {"ones_from_shapes": HIDDEN_FAILURE})
    write_variant(MAPPING, folder / "cid" / MAPPING.name, {"ones_from_shapes": EXPLAINED_ERROR})
    (folder / "dan").mkdir()
    (folder / "dan" / "notes.txt").write_text("no notebook here")
    done = grade_with_cli(folder, root / "report.json", "--assignment", "mapping")
    assert done.returncode == 0, done.stderr
    return done


def ones_from_shapes_test(graded: Graded, student: str) -> dict[str, Any]:
    [test] = graded.exercise("ones_from_shapes", student)["tests"]
    return test


def test_the_schema_is_a_valid_draft_2020_12_schema():
    Draft202012Validator.check_schema(report_schema())
    assert report_schema()["$schema"] == "https://json-schema.org/draft/2020-12/schema"


def test_a_graded_classs_report_fits_the_schema(graded):
    Draft202012Validator(report_schema()).validate(graded.report)


def test_a_merged_report_fits_the_schema(graded, tmp_path):
    students = graded.report["students"]
    shards = []
    for index, part in enumerate((students[:2], students[2:])):
        shard = tmp_path / f"shard{index}.json"
        shard.write_text(json.dumps({**graded.report, "students": part}))
        shards.append(shard)
    done = run_cli("merge", *shards, "--json", tmp_path / "all.json")
    assert done.returncode == 0, done.stderr
    merged = json.loads((tmp_path / "all.json").read_text())
    Draft202012Validator(report_schema()).validate(merged)
    assert merged == graded.report


def test_a_passed_test_has_no_kind_and_no_pointer(graded):
    test = ones_from_shapes_test(graded, "ada")
    assert (test["outcome"], test["kind"], test["pointer"]) == ("passed", "", None)


def test_a_failed_hidden_check_points_to_the_section_its_message_names(graded):
    test = ones_from_shapes_test(graded, "bea")
    assert test["hidden"] and test["message"].endswith("Reread Mapping → Mapping over one tree.")
    assert test["kind"] == "failed-check"
    assert test["pointer"] == {
        "id": "mapping#mapping-over-one-tree",
        "chapter": "mapping",
        "section": "Mapping over one tree",
        "anchor": "mapping-over-one-tree",
    }


def test_an_explained_error_points_to_its_ideas_id_and_section(graded):
    test = ones_from_shapes_test(graded, "cid")
    assert test["outcome"] == "error" and test["kind"] == "error"
    assert test["pointer"] == {
        "id": "tuple-of-shapes-as-shape",
        "chapter": "mapping",
        "section": "The tree-of-shapes trap",
        "anchor": "the-tree-of-shapes-trap",
    }


def test_a_notebook_not_handed_in_is_missing_and_points_nowhere(graded):
    tests = [t for e in graded.student("dan")["exercises"] for t in e["tests"]]
    assert tests and {(t["kind"], t["pointer"]) for t in tests} == {("missing", None)}
    assert graded.student("dan")["files"] == []


def full_report() -> Report:
    """A report with every field filled, the optional ones too."""
    pointer = TestPointer("mapping#mapping-over-one-tree", "mapping", "Mapping over one tree", "a")
    test = TestResult("test_f", "failed", 0.0, 1.0, "m", True, True, "failed-check", pointer)
    exercise = ExerciseResult("mapping.ipynb", "f", 1.0, [test], "a hint", True, 1)
    files = [NotebookFile("copy.ipynb", "mapping", False, "fewer answered cells")]
    student = StudentResult("ada", [exercise], [NotebookNote("mapping.ipynb", "n")], files)
    return Report([student], "bubblewrap", "64 tasks", 7, "1 s")


def schema_for(value: Any, schema: dict[str, Any]) -> dict[str, Any]:
    """``schema`` with its reference followed, and of its alternatives the one for ``value``."""
    if "$ref" in schema:
        schema = report_schema()["$defs"][schema["$ref"].removeprefix("#/$defs/")]
    if isinstance(value, dict):
        for option in schema.get("anyOf", []):
            option = schema_for(value, option)
            if option.get("type") == "object":
                return option
    return schema


def keys_not_alike(value: Any, schema: dict[str, Any], where: str = "report") -> list[str]:
    """Where ``value``'s objects and the schema's properties differ, one line each."""
    schema = schema_for(value, schema)
    if isinstance(value, list):
        assert value, f"{where} is empty: fill it, so that its items are compared"
        return [
            line
            for index, item in enumerate(value)
            for line in keys_not_alike(item, schema["items"], f"{where}[{index}]")
        ]
    if not isinstance(value, dict):
        return []
    properties = schema.get("properties", {})
    lines = [f"{where}.{key}: written, not in the schema" for key in value.keys() - properties]
    lines += [f"{where}.{key}: in the schema, not written" for key in properties.keys() - value]
    for key in value.keys() & properties.keys():
        lines += keys_not_alike(value[key], properties[key], f"{where}.{key}")
    return lines


def test_the_schema_names_every_field_the_report_writes_and_no_other():
    report = full_report().to_dict()
    assert keys_not_alike(report, report_schema()) == []
    Draft202012Validator(report_schema()).validate(report)


def test_the_kinds_are_a_pass_and_every_kind_of_failure():
    assert report_schema()["$defs"]["test"]["properties"]["kind"]["enum"] == ["", *KINDS]


def test_the_outcomes_are_the_graders_outcomes():
    assert report_schema()["$defs"]["outcome"]["enum"] == list(OUTCOMES)


def schemas(node: Any) -> list[dict[str, Any]]:
    """Every schema object in ``node``, nested ones too."""
    if isinstance(node, list):
        return [found for item in node for found in schemas(item)]
    if not isinstance(node, dict):
        return []
    return [node, *(found for value in node.values() for found in schemas(value))]


def test_every_property_says_what_it_means():
    undescribed = [
        name
        for schema in schemas(report_schema())
        for name, property_schema in schema.get("properties", {}).items()
        if not property_schema.get("description", "").strip()
    ]
    assert undescribed == []


def test_every_object_allows_no_other_properties():
    objects = [schema for schema in schemas(report_schema()) if schema.get("type") == "object"]
    assert len(objects) == 7
    assert all(schema.get("additionalProperties") is False for schema in objects)


def test_every_data_file_of_the_package_ships_with_it():
    config = tomllib.loads((REPO_ROOT / "pyproject.toml").read_text())
    patterns = config["tool"]["setuptools"].get("package-data", {}).get("autograder", [])
    package = REPO_ROOT / "autograder"
    shipped = {path for pattern in patterns for path in package.glob(pattern)}
    data = {
        path
        for path in package.rglob("*")
        if path.is_file() and path.suffix not in (".py", ".pyc") and "__pycache__" not in path.parts
    }
    assert sorted(map(str, data - shipped)) == []
    assert package / "report" / "report.schema.json" in shipped
