"""The launch menu offers Binder only once ``repository.url`` names a real repository."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from autograder.load.course import REPO_ROOT
from booktools.binder import PLACEHOLDER_REPOSITORY, launch_buttons_for

COURSE_CONFIG = yaml.safe_load((REPO_ROOT / "_config.yml").read_text(encoding="utf-8"))
A_REAL_REPOSITORY = "https://github.com/someone/pytrees-course"
BUTTONS = {"thebe": True, "binderhub_url": "https://mybinder.org"}


@pytest.mark.parametrize("url", [PLACEHOLDER_REPOSITORY, PLACEHOLDER_REPOSITORY + "/"])
def test_the_placeholder_repository_gets_no_binder_button(url):
    assert launch_buttons_for({"repository_url": url, "launch_buttons": BUTTONS}) == {"thebe": True}


def test_a_real_repository_keeps_its_binder_button():
    options = {"repository_url": A_REAL_REPOSITORY, "launch_buttons": BUTTONS}
    assert launch_buttons_for(options) == BUTTONS


ONE_PAGE = """\
---
jupytext:
  text_representation:
    format_name: myst
kernelspec:
  display_name: Python 3
  name: python3
---
# A page

```{code-cell} ipython3
1 + 1
```
"""


def _build_one_page(folder: Path, repository_url: str) -> str:
    """Build a one-page book with the course's launch settings and extension; its page."""
    folder.mkdir()
    config = {
        "title": "One page",
        "execute": {"execute_notebooks": "off"},
        "repository": {**COURSE_CONFIG["repository"], "url": repository_url},
        "launch_buttons": COURSE_CONFIG["launch_buttons"],
        "sphinx": {"extra_extensions": ["booktools.extension"]},
    }
    (folder / "_config.yml").write_text(yaml.safe_dump(config), encoding="utf-8")
    (folder / "_toc.yml").write_text("format: jb-book\nroot: page\n", encoding="utf-8")
    (folder / "page.md").write_text(ONE_PAGE, encoding="utf-8")
    jupyter_book = Path(sys.executable).parent / "jupyter-book"
    done = subprocess.run(
        [str(jupyter_book), "build", "."], cwd=folder, capture_output=True, text=True, timeout=600
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    return (folder / "_build" / "html" / "page.html").read_text(encoding="utf-8")


@pytest.mark.slow
def test_a_built_page_offers_binder_for_a_real_repository_and_not_for_the_placeholder(tmp_path):
    assert "mybinder.org" not in _build_one_page(tmp_path / "placeholder", PLACEHOLDER_REPOSITORY)
    assert "mybinder.org/v2/gh/someone/pytrees-course/" in _build_one_page(
        tmp_path / "real", A_REAL_REPOSITORY
    )
