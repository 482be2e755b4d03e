#!/bin/sh
# Agent-side provision hook for the local cluster (`strata cluster start`),
# used by `make demo`. AOEs named app* are application environments (exit
# 1: done, no reboot); any other AOE is an OS image (exit 0: the agent runs
# its reboot_command and the server waits for it to register with a new
# boot id reporting the AOE from its aoe_file).
#
#   qmgr -c "create hook prov event=provision"
#   qmgr -c "import hook prov application/x-executable default provision_local.sh"
#
# STRATA_HOOK_VNODE, STRATA_HOOK_AOE and STRATA_HOOK_AOE_FILE come from the
# agent; PROVISION_SECONDS (default 1) makes the change visible in qstat.
set -e
sleep "${PROVISION_SECONDS:-1}"
printf '%s\n' "$STRATA_HOOK_AOE" > "$STRATA_HOOK_AOE_FILE"
case "$STRATA_HOOK_AOE" in
app*) exit 1 ;;
*) exit 0 ;;
esac
