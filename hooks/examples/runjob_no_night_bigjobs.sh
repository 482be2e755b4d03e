#!/bin/sh
# runjob hook: refuse to start jobs asking for more than 64 cpus between
# 08:00 and 18:00; they stay queued with the message as their comment.
#   qmgr -c "create hook daybig event=runjob"
#   qmgr -c "import hook daybig application/x-executable default runjob_no_night_bigjobs.sh"
ncpus=$(python3 -c 'import json,sys; print(json.load(sys.stdin)["job"]["Resource_List"].get("ncpus","1"))')
hour=$(date +%H)
if [ "$ncpus" -gt 64 ] && [ "$hour" -ge 8 ] && [ "$hour" -lt 18 ]; then
    echo '{"reject_message": "jobs over 64 cpus run outside office hours"}'
    exit 1
fi
exit 0
