#!/usr/bin/env bash
# What make test needs besides Go, and the Debian package of each. Missing ones are installed
# (as root, or with a sudo that asks no password); otherwise this stops at once and prints the
# command to run. The tests themselves fail, not skip, when one is missing (make test sets
# HOOKCTL_REQUIRE_ALL=1 and HOOKCTL_REQUIRE_E2E=1).
set -euo pipefail

# program:package. bash and zsh for the shell differential tests; ripgrep, git and cargo, whose
# configuration the judge pins; npm for the real clients (Claude Code, Codex, Qwen Code, Gemini
# CLI, Copilot CLI); tmux for the TUI tests; python3, make, curl and nc for the sandbox's attacks;
# the four awks and strace for the awk checker's fuzz target; xxd and flock for their rules'
# tests; chromium for the dashboard's browser test; and the stand-ins of a developer's services
# the sandbox's edges are attacked through (a D-Bus session bus, an ssh agent; curl speaks HTTP
# to a container engine's socket); bubblewrap and setpriv make the environments the sandbox is
# tried in (no capabilities, no user namespaces); qemu's user mode runs the seccomp tables'
# test built for arm64.
programs=(bash:bash zsh:zsh rg:ripgrep git:git cargo:cargo npm:npm tmux:tmux python3:python3 make:make
	curl:curl nc:netcat-openbsd mawk:mawk gawk:gawk original-awk:original-awk busybox:busybox
	strace:strace xxd:xxd flock:util-linux chromium:chromium dbus-daemon:dbus-daemon dbus-send:dbus-bin
	ssh-agent:openssh-client bwrap:bubblewrap setpriv:util-linux qemu-aarch64-static:qemu-user-static)
# file:package: an emoji font, so that the dashboard's screenshots show the mode badges.
files=(/usr/share/fonts/truetype/noto/NotoColorEmoji.ttf:fonts-noto-color-emoji)

need=()
for p in "${programs[@]}"; do
	command -v "${p%%:*}" >/dev/null 2>&1 || need+=("${p##*:}")
done
for f in "${files[@]}"; do
	[ -e "${f%%:*}" ] || need+=("${f##*:}")
done
if ((${#need[@]} == 0)); then
	exit 0
fi
mapfile -t need < <(printf '%s\n' "${need[@]}" | sort -u)

if ! command -v apt-get >/dev/null 2>&1; then
	echo "make test: these are missing, and this is not a Debian or Ubuntu system, so install them with your package manager (Debian's names): ${need[*]}" >&2
	exit 1
fi
if [ "$(id -u)" -eq 0 ]; then
	sudo=()
elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
	sudo=(sudo -n)
else
	echo "make test: missing ${need[*]}; install them with:" >&2
	echo "  sudo apt-get install -y --no-install-recommends ${need[*]}" >&2
	exit 1
fi
echo "make test: installing ${need[*]}"
export DEBIAN_FRONTEND=noninteractive
"${sudo[@]}" apt-get install -y --no-install-recommends "${need[@]}" ||
	{ "${sudo[@]}" apt-get update && "${sudo[@]}" apt-get install -y --no-install-recommends "${need[@]}"; }
