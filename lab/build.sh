#!/usr/bin/env bash
# Rebuild the course's JupyterLab extension, lab/labextensions/cuda-course-lab (checked in: students
# need no node), from its source, lab/cuda-course-lab/index.js. Needs node and npm; run it after
# editing the source or when JupyterLab's major version changes.
set -euo pipefail
cd "$(dirname "$0")"
lab=$PWD
core=$(../.venv/bin/python -c 'import jupyterlab, pathlib; print(pathlib.Path(jupyterlab.__file__).parent / "staging")')
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp cuda-course-lab/index.js "$work"
out=$(realpath -m --relative-to="$work" "$lab/labextensions/cuda-course-lab")  # the builder wants it relative
sed "s#\"../labextensions/cuda-course-lab\"#\"$out\"#" cuda-course-lab/package.json > "$work/package.json"
cd "$work"
npm install --no-audit --no-fund --no-save --silent @jupyterlab/builder@~4.5.0 @jupyterlab/codemirror@~4.5.0
rm -rf "$lab/labextensions/cuda-course-lab"
node node_modules/@jupyterlab/builder/lib/build-labextension.js --core-path "$core" . >/dev/null
built=$lab/labextensions/cuda-course-lab
sed -i "s#\"$out\"#\"../labextensions/cuda-course-lab\"#" "$built/package.json"
# what it was built from (tests/test_lab_browser.py: a source edited but not rebuilt fails)
(cd "$lab/cuda-course-lab" && sha256sum index.js package.json) > "$built/source.sha256"
echo "built $built"
