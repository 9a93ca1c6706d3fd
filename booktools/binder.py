"""The launch menu's Binder button, offered only for a real repository.

Binder builds the chapter's notebook from the GitHub repository that
``repository.url`` in ``_config.yml`` names. Until an author sets it to their
copy's repository it is the placeholder below, and a Binder button would open a
repository that does not exist: the book then has no Binder button. Setting the
address is all it takes to show it (``launch_buttons.binderhub_url`` says which
BinderHub).
"""

from __future__ import annotations

from typing import Any

from sphinx.application import Sphinx
from sphinx.config import Config

PLACEHOLDER_REPOSITORY = "https://github.com/your-org/pytrees-hands-on"


def is_placeholder(repository_url: str) -> bool:
    """Whether ``repository_url`` is the placeholder that ``_config.yml`` ships with."""
    return repository_url.strip().rstrip("/").removesuffix(".git") == PLACEHOLDER_REPOSITORY


def launch_buttons_for(theme_options: dict[str, Any]) -> dict[str, Any]:
    """The theme's launch buttons, without Binder while the repository is the placeholder."""
    buttons = dict(theme_options.get("launch_buttons") or {})
    if is_placeholder(theme_options.get("repository_url", "")):
        buttons.pop("binderhub_url", None)
    return buttons


def hide_binder_for_the_placeholder(app: Sphinx, config: Config) -> None:
    """``config-inited``: drop the Binder button while the repository is the placeholder."""
    options = dict(config.html_theme_options)
    if "launch_buttons" in options:
        options["launch_buttons"] = launch_buttons_for(options)
        config.html_theme_options = options
