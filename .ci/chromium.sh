#!/usr/bin/env bash
# Installs Debian's Chromium for the browser tests of package http (the web scoreboard) when it is missing,
# and prints the line that points the tests at it:
#
#	eval "$(.ci/chromium.sh)"        # prints export RANKD_TEST_CHROMIUM=/usr/bin/chromium
#	go test -race -run Browser ./http/
#
# Only the export line goes to stdout; progress goes to stderr. Running it again changes nothing.
set -euo pipefail

log() { echo "chromium.sh: $*" >&2; }

bin="${RANKD_TEST_CHROMIUM:-/usr/bin/chromium}"
if [ ! -x "$bin" ]; then
	if ! command -v apt-get >/dev/null 2>&1; then
		log "no $bin and no apt-get to install it: install Chromium and set RANKD_TEST_CHROMIUM"
		exit 1
	fi
	sudo=""
	if [ "$(id -u)" != 0 ]; then
		sudo="sudo"
	fi
	log "installing chromium (Debian)"
	# fonts-dejavu-core: the pages' text has glyphs on a minimal system, so screenshots are readable.
	$sudo apt-get update -qq >&2
	DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq chromium fonts-dejavu-core >&2
	bin=/usr/bin/chromium
fi
log "$("$bin" --version 2>/dev/null | head -n 1)"
echo "export RANKD_TEST_CHROMIUM=$bin"
