# provision hook in the style of OpenPBS's administrator guide: an AOE whose
# name starts with "app" is an application environment (accept(1): done,
# no reboot); any other AOE is an OS image (accept(0): the node reboots
# into it). The commands come from the hook's configuration file:
#   {"app_command": "/usr/local/sbin/setup-app", "os_command": "/usr/local/sbin/reimage"}
# each called with the vnode and the AOE as arguments.
#   qmgr -c "create hook prov event=provision"
#   qmgr -c "import hook prov application/x-python default provision_pbs.py"
#   qmgr -c "import hook prov application/x-config default provision_pbs.json"
import json
import subprocess
import pbs

e = pbs.event()
vnode = e.vnode
aoe = e.aoe
with open(pbs.hook_config_filename) as f:
    conf = json.load(f)

if aoe.startswith("app"):
    ret = subprocess.call([conf["app_command"], vnode, aoe])
    if ret != 0:
        e.reject("Application provisioning of %s with %s failed (%d)" % (vnode, aoe, ret), 211)
    e.accept(1)
else:
    ret = subprocess.call([conf["os_command"], vnode, aoe])
    if ret != 0:
        e.reject("Provisioning of %s with %s failed (%d)" % (vnode, aoe, ret), 210)
    e.accept(0)
