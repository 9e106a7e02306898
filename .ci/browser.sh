#!/usr/bin/env bash
# CI, best effort: Debian's chromium and playwright (in a venv of its own) for tests/test_lab_browser.py,
# which skips in one line where either is missing. Prints the PLAYWRIGHT_PYTHON to use, or nothing.
# Each step has a time limit; nothing here can fail CI.
pw=/tmp/course-playwright
# A CJK font too, so that the Chinese lab's screenshots show characters, not boxes.
pkgs=()
[ -x /usr/bin/chromium ] || pkgs+=(chromium)
dpkg -s fonts-noto-cjk > /dev/null 2>&1 || pkgs+=(fonts-noto-cjk)
if [ ${#pkgs[@]} -gt 0 ] && [ "$(id -u)" = 0 ] && command -v apt-get > /dev/null; then
  { timeout 300 apt-get install -y -q --no-install-recommends "${pkgs[@]}" ||
      { timeout 120 apt-get update -q && timeout 300 apt-get install -y -q --no-install-recommends "${pkgs[@]}"; }
  } > /tmp/course-chromium.log 2>&1 || echo "${pkgs[*]} not installed (see /tmp/course-chromium.log)" >&2
fi
[ -x /usr/bin/chromium ] || exit 0
if [ ! -x "$pw/bin/python" ] || ! "$pw/bin/python" -c "import playwright" 2> /dev/null; then
  { python3 -m venv "$pw" && timeout 300 "$pw/bin/pip" install -q playwright; } > /tmp/course-playwright.log 2>&1 ||
    { echo "playwright not installed (see /tmp/course-playwright.log)" >&2; exit 0; }
fi
echo "$pw/bin/python"
