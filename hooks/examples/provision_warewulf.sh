#!/bin/sh
# Server-side provision hook for Warewulf 4 (hook provision_mode = server):
# the leader runs it with the vnode and the AOE; the AOE names a Warewulf
# container (image). The node is power-cycled into the image; exit 0 tells
# Strata to wait for the node's agent to register with a new boot id (and,
# with aoe_file configured in the image, to report the AOE).
#
#   qmgr -c "create hook ww event=provision"
#   qmgr -c "set hook ww provision_mode = server"
#   qmgr -c "set hook ww alarm = 1800"      # hook + reboot + agent start
#   qmgr -c "import hook ww application/x-executable default provision_warewulf.sh"
#
# Put `aoe_file = "/etc/strata/aoe"` in the agent configuration and write
# the container's name into /etc/strata/aoe when building the container.
set -eu
node=${STRATA_HOOK_VNODE%%[*}        # vnode "n12[0]" -> host n12
wwctl node set --yes --container "$STRATA_HOOK_AOE" "$node" >&2 || exit 2
wwctl configure --all >&2 || exit 2
wwctl power cycle "$node" >&2 || exit 3
exit 0
