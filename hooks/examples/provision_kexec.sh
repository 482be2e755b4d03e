#!/bin/sh
# Agent-side provision hook that switches kernels with kexec (hook
# provision_mode = agent, the default; run as root). Each AOE is a
# directory /boot/aoe/<AOE> holding vmlinuz, initrd.img and cmdline. The
# kernel is loaded now and executed a few seconds later, so the agent can
# report exit 0 first; leave reboot_command unset in the agent's
# configuration (the hook reboots). The new system's agent must report the
# AOE: its aoe_file is written here and read after the kexec (keep it on a
# persistent file system, or bake it into the image).
set -eu
d=/boot/aoe/$STRATA_HOOK_AOE
[ -r "$d/vmlinuz" ] || { echo "no kernel for $STRATA_HOOK_AOE" >&2; exit 2; }
kexec -l "$d/vmlinuz" --initrd="$d/initrd.img" --command-line="$(cat "$d/cmdline")" || exit 2
printf '%s\n' "$STRATA_HOOK_AOE" > "${STRATA_HOOK_AOE_FILE:-/etc/strata/aoe}"
( sleep 5; sync; kexec -e ) >/dev/null 2>&1 &
exit 0
