#!/bin/sh
# Agent-side application provision hook for the local cluster: sets up the
# application environment (here: records it in the marker) and exits 1,
# which completes provisioning at once, without a reboot.
set -e
sleep 1
printf '%s\n' "$STRATA_HOOK_AOE" > "$STRATA_HOOK_AOE_FILE"
exit 1
