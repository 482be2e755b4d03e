#!/bin/sh
# Agent-side OS provision hook for the local cluster: "installs" the image
# by writing its name into the agent's image marker (aoe_file), then exits
# 0: the agent runs its reboot_command (`strata cluster reboot`, a restart
# with a new boot id) and the server completes the provisioning when the
# agent registers again reporting the requested AOE.
set -e
sleep 1
printf '%s\n' "$STRATA_HOOK_AOE" > "$STRATA_HOOK_AOE_FILE"
exit 0
