#!/bin/sh
# Server-side provision hook for xCAT (hook provision_mode = server): the
# AOE names an xCAT osimage definition. nodeset points the node's network
# boot at the image, rpower reboots it; exit 0 makes Strata wait for the
# agent to come back with a new boot id (hook alarm covers the install).
#
#   qmgr -c "create hook xcat event=provision"
#   qmgr -c "set hook xcat provision_mode = server"
#   qmgr -c "set hook xcat alarm = 3600"
#   qmgr -c "import hook xcat application/x-executable default provision_xcat.sh"
set -eu
node=${STRATA_HOOK_VNODE%%[*}
lsdef -t osimage "$STRATA_HOOK_AOE" >/dev/null 2>&1 || { echo "no osimage $STRATA_HOOK_AOE" >&2; exit 2; }
nodeset "$node" osimage="$STRATA_HOOK_AOE" >&2 || exit 2
rpower "$node" boot >&2 || exit 3
exit 0
