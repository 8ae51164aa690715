#!/usr/bin/env bash
# The two published Dynamo releases whose replays the diagnosis is measured on (issue 26):
# ai-dynamo 1.3.1 and 1.4.0, each in its own virtual environment outside the checkout
# (~/.cache/kvparity/venv-VERSION). An environment whose `python -m dynamo.replay --help` runs
# is kept; any other is made anew. A pip failure fails the script (set -e), and an environment
# is marked ready only after its replay answers, so a half-made one is never taken for ready.
set -euo pipefail
root="${KVPARITY_VENV_ROOT:-$HOME/.cache/kvparity}"
python="${PYTHON:-python3}"
for v in 1.3.1 1.4.0; do
  venv="$root/venv-$v"
  if [ -f "$venv/ready" ] && "$venv/bin/python" -m dynamo.replay --help >/dev/null 2>&1; then
    continue
  fi
  rm -rf "$venv"
  mkdir -p "$root"
  "$python" -m venv "$venv"
  "$venv/bin/pip" install --quiet --disable-pip-version-check "ai-dynamo==$v"
  "$venv/bin/python" -m dynamo.replay --help >/dev/null
  echo "ai-dynamo==$v" >"$venv/ready"
done
