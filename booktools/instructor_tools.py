"""nbgrader's instructor tools, left out of the learner's JupyterLab.

The course installs nbgrader for its authors (``generate``, nbgrader's own grading,
the gradebook), and nbgrader enables itself in every JupyterLab of that Python: its
server extensions (formgrader, the course list, the assignment list, validation) and
its JupyterLab plugins (the Formgrader and Course List panels, the Create Assignment
sidebar, the Nbgrader menu). None of them is for a learner, so the JupyterLab that
``./course serve`` starts turns them off for itself only: the server extensions on its
command line, the plugins in a page config read from a folder of its own. An
instructor's ``jupyter lab`` keeps them all.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from jupyter_core.paths import jupyter_config_path
from jupyter_server.extension.config import ExtensionConfigManager

PACKAGE = "nbgrader"
# The JupyterLab extension that holds all of nbgrader's plugins.
LAB_EXTENSION = "@jupyter/nbgrader"


def server_extensions() -> list[str]:
    """The nbgrader server extensions that this Python's Jupyter config enables."""
    enabled = ExtensionConfigManager(read_config_path=jupyter_config_path())
    return sorted(
        name
        for name, on in enabled.get_jpserver_extensions().items()
        if on and name.split(".")[0] == PACKAGE
    )


def server_arguments() -> list[str]:
    """``jupyter lab`` arguments that turn nbgrader's server extensions off.

    The command line wins over the config files that enable them.
    """
    return [f"--ServerApp.jpserver_extensions={name}=False" for name in server_extensions()]


def write_lab_config(folder: Path, also: tuple[str, ...] = ()) -> Path:
    """Write into ``folder`` a Jupyter config folder whose page config disables nbgrader's
    JupyterLab plugins, and the plugins ``also`` names, and return it; it is put on
    ``JUPYTER_CONFIG_PATH``."""
    page_config = folder / "labconfig" / "page_config.json"
    page_config.parent.mkdir(parents=True, exist_ok=True)
    disabled = dict.fromkeys((LAB_EXTENSION, *also), True)
    page_config.write_text(json.dumps({"disabledExtensions": disabled}, indent=2))
    return folder


def config_path_with(folder: Path, environment: dict[str, str]) -> str:
    """``JUPYTER_CONFIG_PATH`` for ``environment``, with ``folder`` first."""
    existing = environment.get("JUPYTER_CONFIG_PATH")
    return os.pathsep.join([str(folder), *([existing] if existing else [])])
