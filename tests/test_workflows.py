"""The GitHub Actions workflows: actionlint finds nothing in them, and grading a pull
request runs the base branch's grader on the pull request's submissions/ alone."""

from __future__ import annotations

import re
import shutil
import subprocess
import sysconfig
from pathlib import Path
from typing import Any

import pytest
import yaml

from autograder.load.course import REPO_ROOT

WORKFLOWS = REPO_ROOT / ".github" / "workflows"
GRADE_SUBMISSIONS = WORKFLOWS / "grade-submissions.yml"
GRADE_CLASS = WORKFLOWS / "grade-class.yml"

Step = dict[str, Any]


def actionlint() -> str:
    """The actionlint of this environment (pinned in requirements.txt)."""
    beside_python = Path(sysconfig.get_path("scripts")) / "actionlint"
    found = str(beside_python) if beside_python.exists() else shutil.which("actionlint")
    assert found, "actionlint is missing: ./course setup installs it from requirements.txt"
    return found


def lint(workflow: Path) -> subprocess.CompletedProcess[str]:
    # Shellcheck checks the run: scripts when it is installed; actionlint skips it otherwise.
    return subprocess.run(
        [actionlint(), "-no-color", str(workflow)],
        capture_output=True,
        text=True,
        cwd=REPO_ROOT,
        timeout=120,
    )


def load(workflow: Path) -> dict[str, Any]:
    data = yaml.safe_load(workflow.read_text(encoding="utf-8"))
    # YAML 1.1 reads the key `on` as the boolean true.
    if True in data:
        data["on"] = data.pop(True)
    return data


def steps(workflow: dict[str, Any]) -> list[Step]:
    return [step for job in workflow["jobs"].values() for step in job["steps"]]


def checkouts(workflow: dict[str, Any]) -> list[Step]:
    return [s for s in steps(workflow) if s.get("uses", "").startswith("actions/checkout@")]


def only(found: list[Step], what: str) -> Step:
    assert len(found) == 1, f"expected one {what}, found {len(found)}: {found}"
    return found[0]


def checkout_of(workflow: dict[str, Any], ref_expression: str) -> Step:
    return only(
        [s for s in checkouts(workflow) if ref_expression in s.get("with", {}).get("ref", "")],
        f"checkout of {ref_expression}",
    )


def grading_step(workflow: dict[str, Any]) -> Step:
    return only(
        [s for s in steps(workflow) if "-m autograder grade" in s.get("run", "")], "grading step"
    )


@pytest.fixture(scope="module")
def grading() -> dict[str, Any]:
    return load(GRADE_SUBMISSIONS)


@pytest.fixture(scope="module")
def base(grading) -> Step:
    return checkout_of(grading, "github.event.pull_request.base.sha")


@pytest.fixture(scope="module")
def head(grading) -> Step:
    return checkout_of(grading, "github.event.pull_request.head.sha")


def test_the_workflow_folder_holds_the_book_ci_and_grading_workflows():
    names = {path.name for path in WORKFLOWS.glob("*.yml")}
    assert names >= {"book.yml", "ci.yml", "grade-class.yml", "grade-submissions.yml"}


@pytest.mark.parametrize("workflow", sorted(WORKFLOWS.glob("*.yml")), ids=lambda p: p.name)
def test_actionlint_finds_nothing_in_the_workflow(workflow):
    done = lint(workflow)
    findings = (done.stdout + done.stderr).strip()
    assert done.returncode == 0 and not findings, f"actionlint on {workflow.name}:\n{findings}"


def test_actionlint_reports_a_mistake_in_a_workflow(tmp_path):
    broken = tmp_path / "broken.yml"
    broken.write_text(
        "on: push\n"
        "jobs:\n"
        "  test:\n"
        "    runs-on: ubuntu-latest\n"
        "    strategy:\n"
        "      matrix:\n"
        "        python: ['3.11']\n"
        "    steps:\n"
        "      - run: echo ${{ matrix.pyhton }}\n",
        encoding="utf-8",
    )
    done = lint(broken)
    assert done.returncode == 1, done.stdout + done.stderr
    assert 'property "pyhton" is not defined' in done.stdout


def test_pull_requests_are_graded_on_pull_request_not_pull_request_target(grading):
    assert set(grading["on"]) == {"pull_request", "workflow_dispatch"}
    assert grading["on"]["pull_request"]["paths"] == ["submissions/**"]


def test_the_grading_token_only_reads_the_repository_and_no_secret_is_used(grading):
    assert grading["permissions"] == {"contents": "read"}
    assert all("permissions" not in job for job in grading["jobs"].values())
    assert "secrets." not in GRADE_SUBMISSIONS.read_text(encoding="utf-8")


def test_every_checkout_names_its_commit_rather_than_the_pull_requests_merge(grading):
    # Without a ref, a pull_request run checks out the merge of the pull request's code.
    commit = r"\$\{\{ github\.event\.pull_request\.(base|head)\.sha( \|\| github\.sha)? \}\}"
    refs = [s.get("with", {}).get("ref", "") for s in checkouts(grading)]
    assert refs and all(re.fullmatch(commit, ref) for ref in refs), refs


def test_no_checkout_leaves_a_token_in_its_git_config(grading):
    keeping = [s for s in checkouts(grading) if s["with"].get("persist-credentials") is not False]
    assert not keeping, keeping


def test_the_pull_request_head_is_checked_out_as_its_submissions_folder_alone(head, base):
    options = head["with"]
    assert options["sparse-checkout"].split() == ["/submissions/"]
    # Cone mode would bring the files at the repository's root along.
    assert options["sparse-checkout-cone-mode"] is False
    head_path, base_path = Path(options["path"]), Path(base["with"]["path"])
    assert not head_path.is_relative_to(base_path)
    assert not base_path.is_relative_to(head_path)


def test_the_grader_runs_from_the_base_checkout_with_its_own_environment(grading, base):
    step = grading_step(grading)
    assert step["working-directory"] == base["with"]["path"]
    assert step["run"].count(".venv/bin/python -m autograder grade") == 1
    setup = only(
        [s for s in steps(grading) if "./course setup-grading" in s.get("run", "")], "setup"
    )
    assert setup["working-directory"] == base["with"]["path"]


def test_no_step_runs_inside_the_pull_requests_checkout(grading, head):
    head_path = Path(head["with"]["path"])
    for step in steps(grading):
        where = step.get("working-directory")
        assert where is None or not Path(where).is_relative_to(head_path), step
        uses = step.get("uses", "")
        assert not (uses.startswith("./") and Path(uses).is_relative_to(head_path)), step


@pytest.mark.parametrize("workflow", [GRADE_SUBMISSIONS, GRADE_CLASS], ids=lambda p: p.name)
def test_grading_jobs_install_the_graders_requirements_and_not_the_books(workflow):
    # requirements.txt brings Jupyter Book, Playwright and ruff; so does any ./course job
    # but setup-grading.
    full = re.compile(r"requirements\.txt|\./course (?!setup-grading\b)")
    jobs = {
        name: job
        for name, job in load(workflow)["jobs"].items()
        if any("-m autograder" in step.get("run", "") for step in job["steps"])
    }
    assert jobs
    for name, job in jobs.items():
        runs = "\n".join(step.get("run", "") for step in job["steps"])
        assert not full.search(runs), f"{name} installs requirements.txt:\n{runs}"
        assert "-r requirements-grading.txt" in runs or "./course setup-grading" in runs, name
        caches = [
            step["with"]["cache-dependency-path"]
            for step in job["steps"]
            if "cache-dependency-path" in step.get("with", {})
        ]
        assert all(Path(cache).name == "requirements-grading.txt" for cache in caches), caches


@pytest.mark.parametrize("workflow", [GRADE_SUBMISSIONS, GRADE_CLASS], ids=lambda p: p.name)
def test_grading_stops_before_it_starts_when_bubblewrap_cannot_sandbox(workflow):
    workflow_steps = steps(load(workflow))
    probe = only(
        [s for s in workflow_steps if "bwrap --unshare-all" in s.get("run", "")], "bwrap probe"
    )
    assert workflow_steps.index(probe) < workflow_steps.index(grading_step(load(workflow)))


def test_learners_feedback_in_the_log_cannot_issue_workflow_commands(grading):
    run = grading_step(grading)["run"]
    stop = run.index("::stop-commands::")
    assert stop < run.index("-m autograder grade")


def test_the_class_workflow_writes_the_classs_page_and_uploads_it_with_the_reports():
    workflow = load(GRADE_CLASS)
    merge = only(
        [s for s in steps(workflow) if "-m autograder merge" in s.get("run", "")], "merge step"
    )
    assert re.search(r"--html class\.html\b", merge["run"]), merge["run"]
    uploads = [
        s["with"]["path"].split()
        for s in workflow["jobs"]["merge"]["steps"]
        if s.get("uses", "").startswith("actions/upload-artifact@")
    ]
    assert uploads and "class.html" in only(uploads, "upload of the merged reports")
