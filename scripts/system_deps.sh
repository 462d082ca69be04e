#!/usr/bin/env sh
# System libraries some features need, installed with apt-get where this is Debian/Ubuntu and we may:
#   Pango (WeasyPrint, to convert HTML filings to PDF); Tesseract with Chinese + English data (--ocr);
#   Chromium (headless: the evidence viewer's browser test, tests/test_evidence_app.py; nothing at run time).
# Elsewhere, or without root, it says what is missing and carries on: everything else works without them.
set -u
missing=""
python3 -c 'import ctypes.util, sys; sys.exit(0 if ctypes.util.find_library("pango-1.0") and ctypes.util.find_library("pangoft2-1.0") else 1)' \
  || missing="$missing libpango-1.0-0 libpangoft2-1.0-0"
for lang in chi_sim eng; do
  found=""
  for dir in /usr/share/tesseract-ocr/5/tessdata /usr/share/tesseract-ocr/4.00/tessdata /usr/share/tessdata; do
    [ -f "$dir/$lang.traineddata" ] && found=1
  done
  [ -n "$found" ] || missing="$missing tesseract-ocr-$(echo $lang | tr _ -)"
done
command -v chromium >/dev/null 2>&1 || command -v chromium-browser >/dev/null 2>&1 || missing="$missing chromium"
[ -z "$missing" ] && exit 0
if command -v apt-get >/dev/null 2>&1 && [ "$(id -u)" = 0 ]; then
  echo "installing system packages:$missing" >&2
  apt-get update -qq >/dev/null && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $missing tesseract-ocr >/dev/null \
    || echo "warning: apt-get could not install$missing; HTML conversion, --ocr or the browser test may not work" >&2
else
  echo "note: missing system packages:$missing (HTML filings need Pango, --ocr needs Tesseract, the evidence viewer's browser test Chromium); install them with your package manager" >&2
fi
exit 0
