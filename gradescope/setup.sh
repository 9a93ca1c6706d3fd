#!/usr/bin/env bash
# Gradescope runs this once, as root, when it builds the autograder's image from
# the zip unpacked in /autograder/source.
#
# Only there does it install system packages (Python 3.11 and bubblewrap, with apt):
# anywhere else, a dry run on an instructor's machine say, it installs none unless
# AUTOGRADER_SYSTEM_PACKAGES=1 says to, and makes .venv with this machine's Python
# ($AUTOGRADER_PYTHON, else python3.11).
set -euo pipefail
cd "$(dirname "$0")"

install_system_packages() {
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  if ! apt-get install -y -qq python3.11 python3.11-venv; then
    # Ubuntu 22.04 carries Python 3.11; for 20.04 and 24.04 it comes from deadsnakes.
    apt-get install -y -qq software-properties-common
    add-apt-repository -y ppa:deadsnakes/ppa
    apt-get update -qq
    apt-get install -y -qq python3.11 python3.11-venv
  fi
  # The grader walls each notebook off with bubblewrap where the container lets it.
  apt-get install -y -qq bubblewrap
}

if [ "$(pwd)" = /autograder/source ] || [ "${AUTOGRADER_SYSTEM_PACKAGES:-}" = 1 ]; then
  install_system_packages
else
  echo "setup.sh: not in Gradescope's /autograder/source, so no system package is installed" \
    "(AUTOGRADER_SYSTEM_PACKAGES=1 installs them); grading uses bubblewrap if this machine has it"
fi

"${AUTOGRADER_PYTHON:-python3.11}" -m venv .venv
.venv/bin/python -m pip install --quiet --upgrade pip
# Only what grading needs: the zip holds the grader's requirements, not the book's.
.venv/bin/python -m pip install --quiet -r requirements-grading.txt

# Grade the reference solutions once: an image that cannot grade fails here, at
# upload, rather than on a learner's submission.
.venv/bin/python -m autograder grade solutions --no-cache --fail-under 100
