#!/bin/sh
# Appends the integration's overlays (models/<name>/) to the rendered repository.
set -e
[ -n "{{ cookiecutter._config_dir }}" ] || exit 0
cat "{{ cookiecutter._config_dir }}/README.md" >> README.md
cat "{{ cookiecutter._config_dir }}/pyproject.toml" >> pyproject.toml
