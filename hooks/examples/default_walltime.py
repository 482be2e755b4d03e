# queuejob hook: give jobs without a walltime a default of one hour.
#   qmgr -c "create hook defwall event=queuejob"
#   qmgr -c "import hook defwall application/x-python default default_walltime.py"
import json
import sys

event = json.load(sys.stdin)
if "walltime" not in event["job"].get("resource_list", {}):
    print(json.dumps({"job": {"Resource_List.walltime": "01:00:00"}}))
