"""pbs: OpenPBS's hook interface, as Strata runs it (docs/hooks.md).

Strata runs an application/x-python hook as `python3 -s <hook>` with this
package on PYTHONPATH and the event as JSON on stdin (the same JSON every
hook gets). Importing the module reads the event. When the hook ends, its
answer (accept or reject, job changes, log lines) goes back to the runner
as one JSON object on the process's original stdout. The hook's own stdout
is sent to its stderr, so nothing a hook prints (job attributes included)
can be taken for the answer.

Event data is only ever parsed as JSON and kept as Python values: a job
attribute is never evaluated or formatted into code.

Pure Python 3, standard library only.
"""

import atexit
import functools
import json
import os
import socket
import sys
import tempfile

# --- the answer channel ------------------------------------------------------

# The runner reads the answer from fd 1. Keep a private copy (os.dup gives
# a non-inheritable descriptor: commands the hook runs cannot write to it)
# and point fd 1 and sys.stdout at stderr.
_answer_fd = os.dup(1)
os.dup2(2, 1)
sys.stdout = sys.stderr


def _read_event():
    try:
        data = json.load(sys.stdin)
    except ValueError:
        data = {}
    return data if isinstance(data, dict) else {}


_raw = _read_event()

# The query channel (pbs.server().job(id) for jobs the event does not
# carry): request and answer descriptors, kept from the hook's children.
_query_fds = None
try:
    _w, _r = (int(x) for x in os.environ.get("STRATA_HOOK_QUERY_FDS", "").split(","))
    os.set_inheritable(_w, False)
    os.set_inheritable(_r, False)
    _query_fds = (_w, os.fdopen(_r, "rb"))
except (ValueError, OSError):
    _query_fds = None


def _query(kind, name):
    """Ask the daemon for an object; None when there is none (or no
    channel: agent events)."""
    if _query_fds is None:
        return None
    line = (json.dumps({"kind": kind, "name": str(name)}) + "\n").encode()
    try:
        os.write(_query_fds[0], line)
        answer = _query_fds[1].readline()
        return json.loads(answer).get("result") if answer else None
    except (OSError, ValueError):
        return None

# --- constants (OpenPBS's values) ----------------------------------------------

QUEUEJOB = 0x01
MODIFYJOB = 0x02
RESVSUB = 0x04
MOVEJOB = 0x08
RUNJOB = 0x10
PROVISION = 0x20
EXECJOB_BEGIN = 0x40
EXECJOB_PROLOGUE = 0x80
EXECJOB_EPILOGUE = 0x100
EXECJOB_END = 0x200
EXECJOB_PRETERM = 0x400
EXECJOB_LAUNCH = 0x800
EXECHOST_PERIODIC = 0x1000
EXECHOST_STARTUP = 0x2000
EXECJOB_ATTACH = 0x4000
PERIODIC = 0x8000
RESV_END = 0x10000
EXECJOB_RESIZE = 0x20000
EXECJOB_ABORT = 0x40000
EXECJOB_POSTSUSPEND = 0x80000
EXECJOB_PRERESUME = 0x100000
MANAGEMENT = 0x200000
MODIFYVNODE = 0x400000
JOBOBIT = 0x800000
RESV_BEGIN = 0x1000000
RESV_CONFIRM = 0x2000000
MODIFYRESV = 0x4000000
POSTQUEUEJOB = 0x8000000
EXECJOB_CHECKPOINT = 0x10000000  # Strata's: preemption by checkpoint

_EVENT_TYPES = {
    "queuejob": QUEUEJOB, "modifyjob": MODIFYJOB, "resvsub": RESVSUB,
    "movejob": MOVEJOB, "runjob": RUNJOB, "provision": PROVISION,
    "execjob_begin": EXECJOB_BEGIN, "execjob_prologue": EXECJOB_PROLOGUE,
    "execjob_epilogue": EXECJOB_EPILOGUE, "execjob_end": EXECJOB_END,
    "execjob_checkpoint": EXECJOB_CHECKPOINT,
    "execjob_preterm": EXECJOB_PRETERM, "execjob_launch": EXECJOB_LAUNCH,
    "exechost_periodic": EXECHOST_PERIODIC, "exechost_startup": EXECHOST_STARTUP,
    "execjob_attach": EXECJOB_ATTACH, "periodic": PERIODIC, "resv_end": RESV_END,
    "execjob_resize": EXECJOB_RESIZE, "execjob_abort": EXECJOB_ABORT,
    "execjob_postsuspend": EXECJOB_POSTSUSPEND, "execjob_preresume": EXECJOB_PRERESUME,
    "management": MANAGEMENT, "modifyvnode": MODIFYVNODE, "jobobit": JOBOBIT,
    "resv_begin": RESV_BEGIN, "resv_confirm": RESV_CONFIRM, "modifyresv": MODIFYRESV,
    "postqueuejob": POSTQUEUEJOB,
}
for _name, _value in list(_EVENT_TYPES.items()):
    globals()["HOOK_EVENT_" + _name.upper()] = _value

# pbs.logmsg severities and log event classes.
LOG_DEBUG = 0x0005
LOG_WARNING = 0x0006
LOG_ERROR = 0x0007
EVENT_ERROR = 0x0001
EVENT_SYSTEM = 0x0002
EVENT_ADMIN = 0x0004
EVENT_JOB = 0x0008
EVENT_JOB_USAGE = 0x0010
EVENT_SECURITY = 0x0020
EVENT_SCHED = 0x0040
EVENT_DEBUG = 0x0080
EVENT_DEBUG2 = 0x0100
EVENT_RESV = 0x0200
EVENT_DEBUG3 = 0x0400
EVENT_DEBUG4 = 0x0800
EVENT_FORCE = 0x8000

JOB_STATE_TRANSIT = 0
JOB_STATE_QUEUED = 1
JOB_STATE_HELD = 2
JOB_STATE_WAITING = 3
JOB_STATE_RUNNING = 4
JOB_STATE_EXITING = 5
JOB_STATE_EXPIRED = 6
JOB_STATE_BEGUN = 7
JOB_STATE_MOVED = 8
JOB_STATE_FINISHED = 9
JOB_STATE_SUSPEND = 400
JOB_STATE_SUSPEND_USERACTIVE = 410
_JOB_STATES = {"T": 0, "Q": 1, "H": 2, "W": 3, "R": 4, "E": 5, "X": 6, "B": 7,
               "M": 8, "F": 9, "S": 400, "U": 410}

QTYPE_EXECUTION = 1
QTYPE_ROUTE = 2

# Vnode states (OpenPBS's bits); vnode.state is their sum.
_ND_STATES = {
    "free": 0x0, "offline": 0x1, "down": 0x2, "job-busy": 0x10, "Stale": 0x20,
    "job-exclusive": 0x40, "busy": 0x80, "state-unknown": 0x100,
    "initializing": 0x400, "provisioning": 0x800, "wait-provisioning": 0x1000,
    "resv-exclusive": 0x2000, "maintenance": 0x20000, "sleep": 0x40000,
}
ND_FREE = ND_STATE_FREE = 0x0
ND_OFFLINE = ND_STATE_OFFLINE = 0x1
ND_DOWN = ND_STATE_DOWN = 0x2
ND_STATE_DELETED = 0x4
ND_UNRESOLVABLE = ND_STATE_UNRESOLVABLE = 0x8
ND_JOBBUSY = ND_STATE_JOBBUSY = 0x10
ND_STALE = ND_STATE_STALE = 0x20
ND_JOB_EXCLUSIVE = ND_STATE_JOB_EXCLUSIVE = 0x40
ND_BUSY = ND_STATE_BUSY = 0x80
ND_STATE_UNKNOWN = 0x100
ND_STATE_INIT = 0x400
ND_PROV = ND_STATE_PROV = 0x800
ND_WAIT_PROV = ND_STATE_WAIT_PROV = 0x1000
ND_RESV_EXCLUSIVE = ND_STATE_RESV_EXCLUSIVE = 0x2000
ND_STATE_OFFLINE_BY_MOM = 0x4000
ND_STATE_MAINTENANCE = 0x20000
ND_SLEEP = ND_STATE_SLEEP = 0x40000


def _node_state(text):
    if text is None:
        return None
    bits = 0
    for name in str(text).split(","):
        bits |= _ND_STATES.get(name.strip(), 0)
    return bits


# --- exceptions (OpenPBS's names) --------------------------------------------------

class BadAttributeValueError(Exception):
    pass


class BadAttributeValueTypeError(Exception):
    pass


class BadResourceValueError(Exception):
    pass


class BadResourceValueTypeError(Exception):
    pass


class EventIncompatibleError(Exception):
    pass


class UnsetAttributeNameError(Exception):
    pass


class UnsetResourceNameError(Exception):
    pass


# --- value types -------------------------------------------------------------------


class duration(int):
    """A time in seconds, written [[HH:]MM:]SS; str() gives HH:MM:SS."""

    def __new__(cls, value):
        if isinstance(value, str):
            text = value.strip()
            try:
                secs = 0
                for part in text.split(":"):
                    secs = secs * 60 + int(float(part) if "." in part else int(part))
            except ValueError:
                raise BadResourceValueError("bad duration value '%s'" % value)
            if len(text.split(":")) > 3:
                raise BadResourceValueError("bad duration value '%s'" % value)
            value = secs
        return int.__new__(cls, int(value))

    def __str__(self):
        s = int(self)
        return "%02d:%02d:%02d" % (s // 3600, (s // 60) % 60, s % 60)

    def __repr__(self):
        return str(self)


_SIZE_UNITS = {"b": 1, "w": 8, "kb": 1 << 10, "kw": 8 << 10, "mb": 1 << 20,
               "mw": 8 << 20, "gb": 1 << 30, "gw": 8 << 30, "tb": 1 << 40,
               "tw": 8 << 40, "pb": 1 << 50, "pw": 8 << 50}


@functools.total_ordering
class size(object):
    """A size such as 10gb; compares and adds by bytes."""

    def __init__(self, value):
        if isinstance(value, size):
            self._bytes, self._text = value._bytes, value._text
            return
        if isinstance(value, int):
            self._bytes, self._text = int(value), "%db" % int(value)
            return
        text = str(value).strip().lower()
        num = text.rstrip("bkmgtpw")
        unit = text[len(num):] or "b"
        if unit not in _SIZE_UNITS or not num.isdigit():
            raise BadResourceValueError("bad size value '%s'" % value)
        self._bytes = int(num) * _SIZE_UNITS[unit]
        self._text = num + unit

    def __int__(self):
        return self._bytes

    __index__ = __int__

    def __str__(self):
        return self._text

    def __repr__(self):
        return self._text

    def __hash__(self):
        return hash(self._bytes)

    def __eq__(self, other):
        try:
            return self._bytes == size(other)._bytes
        except BadResourceValueError:
            return NotImplemented

    def __lt__(self, other):
        return self._bytes < size(other)._bytes

    def __add__(self, other):
        return _size_of(self._bytes + size(other)._bytes)

    __radd__ = __add__

    def __sub__(self, other):
        return _size_of(self._bytes - size(other)._bytes)


def _size_of(nbytes):
    if nbytes % 1024 == 0:
        return size("%dkb" % (nbytes // 1024))
    return size(nbytes)


class select(str):
    """A select specification ("2:ncpus=4:mem=1gb+1:ncpus=1")."""


class place(str):
    """A place specification ("scatter:excl")."""


class exec_vnode(str):
    pass


class exec_host(str):
    pass


class hold_types(str):
    pass


class _named(str):
    """A queue or server reference: the name, with .name as in PBS."""

    @property
    def name(self):
        return str(self)


_BUILTIN_TYPES = {
    "walltime": "duration", "cput": "duration", "min_walltime": "duration",
    "max_walltime": "duration", "soft_walltime": "duration",
    "mem": "size", "vmem": "size", "pmem": "size", "pvmem": "size", "file": "size",
    "ncpus": "long", "nodect": "long", "mpiprocs": "long", "ompthreads": "long",
    "ngpus": "long", "cpupercent": "long", "pcput": "duration",
}
_TYPES = dict(_BUILTIN_TYPES)
_TYPES.update(_raw.get("resource_types") or {})
_TYPES["select"] = "select"
_TYPES["place"] = "place"


def _typed(name, value):
    """A resource value of the resource's type (raises on a bad value)."""
    kind = _TYPES.get(name, "string")
    if kind == "duration":
        return value if isinstance(value, duration) else duration(value)
    if kind == "size":
        return value if isinstance(value, size) else size(value)
    if kind == "long":
        try:
            return int(value)
        except (TypeError, ValueError):
            raise BadResourceValueError("bad %s value '%s'" % (name, value))
    if kind == "float":
        try:
            return float(value)
        except (TypeError, ValueError):
            raise BadResourceValueError("bad %s value '%s'" % (name, value))
    if kind == "boolean":
        if isinstance(value, bool):
            return value
        return str(value).lower() in ("true", "t", "y", "yes", "1")
    if kind == "select":
        return select(value)
    if kind == "place":
        return place(value)
    return str(value)


def _text(value):
    """How a value set by a hook travels back to the server."""
    if isinstance(value, bool):
        return "True" if value else "False"
    return str(value)


# --- the answer ------------------------------------------------------------------

_LOG_BUDGET = 32 << 10  # bytes of log text a hook may send (the runner reads 64 KiB)
_MAX_MESSAGE = 4000  # characters of a reject message

_answer = {"accept": True, "reject_message": None, "job": {}, "resv": {}, "log": [],
           "hook_error": None, "exit": 0}
_log_used = [0]


def _log(level, msg, job=None):
    text = str(msg)
    cost = len(json.dumps(text)) + len(json.dumps(str(job or "")))  # as encoded in the answer
    if _log_used[0] + cost > _LOG_BUDGET:
        if _log_used[0] <= _LOG_BUDGET:
            _answer["log"].append({"level": LOG_WARNING, "msg": "(further log messages dropped)"})
            _log_used[0] = _LOG_BUDGET + 1
        return
    _log_used[0] += cost
    entry = {"level": int(level), "msg": text}
    if job:
        entry["job"] = str(job)
    _answer["log"].append(entry)


def logmsg(level, msg):
    """Write msg to the daemon's log (server or agent)."""
    _log(level, msg)


def logjobmsg(jobid, msg):
    """Write msg to the daemon's log, about job jobid."""
    _log(LOG_DEBUG, msg, jobid)


def _excepthook(kind, value, tb):
    sys.__excepthook__(kind, value, tb)
    _answer["accept"] = False
    _answer["hook_error"] = ("request rejected as filter hook '%s' encountered "
                             "an exception. Please inform Admin" % _raw.get("hook_name", ""))


sys.excepthook = _excepthook


def _send_answer():
    cfg = _config_file[0]
    if cfg:
        try:
            os.unlink(cfg)
        except OSError:
            pass
    out = {"log": _answer["log"]}
    if _raw.get("type") == "provision":
        # A provision hook answers with its exit status (accept(code)).
        if _answer["hook_error"]:
            out["hook_error"] = _answer["hook_error"]
    else:
        out["accept"] = bool(_answer["accept"])
        if _answer["reject_message"]:
            out["reject_message"] = _answer["reject_message"]
        if _answer["hook_error"]:
            out["hook_error"] = _answer["hook_error"]
        elif _answer["accept"] and _answer["job"]:
            out["job"] = _answer["job"]
        elif _answer["accept"] and _answer["resv"]:
            out["resv"] = _answer["resv"]
    data = json.dumps(out).encode()
    while data:
        n = os.write(_answer_fd, data)
        data = data[n:]
    os.close(_answer_fd)
    sys.stdout.flush()
    if _raw.get("type") == "provision" and not _answer["hook_error"]:
        os._exit(_answer["exit"])


atexit.register(_send_answer)


# --- what the hook may change, per event -------------------------------------------

# Attributes a queuejob or modifyjob hook may set (the server applies these;
# PBS allows a few more, listed in docs/hooks.md). Other events' changes
# are refused here and by the server.
_SETTABLE = {
    "queuejob": {"Job_Name", "Priority", "comment", "Account_Name", "project",
                 "Resource_List", "Variable_List", "Hold_Types", "Mail_Points",
                 "Mail_Users", "Rerunable"},
    "modifyjob": {"Job_Name", "Priority", "Account_Name", "project",
                  "Resource_List", "Hold_Types", "Mail_Points", "Mail_Users",
                  "Rerunable"},
    # Reservations (pbs.event().resv; the server checks the result as it
    # checks pbs_rsub's and pbs_ralter's own requests).
    "resvsub": {"Reserve_Name", "reserve_start", "reserve_end", "reserve_duration",
                "Resource_List", "Authorized_Users", "Authorized_Groups",
                "Authorized_Hosts", "Mail_Points", "Mail_Users"},
    "modifyresv": {"Reserve_Name", "reserve_start", "reserve_end", "reserve_duration",
                   "Resource_List", "Authorized_Users", "Authorized_Groups",
                   "Mail_Points", "Mail_Users"},
}


def _settable(attr):
    return attr in _SETTABLE.get(_raw.get("type"), ())


def _refuse(attr):
    raise BadAttributeValueError(
        "%s: attribute cannot be set in a %s event" % (attr, _raw.get("type", "")))


class pbs_resource(object):
    """Resource_List / resources_used / resources_available: name -> typed value."""

    def __init__(self, attr, values, record=None):
        object.__setattr__(self, "_attr", attr)
        object.__setattr__(self, "_values", {})
        object.__setattr__(self, "_record", record)
        for k, v in (values or {}).items():
            try:
                self._values[k] = _typed(k, v)
            except BadResourceValueError:
                self._values[k] = str(v)

    def __getitem__(self, name):
        return self._values.get(name)

    def __setitem__(self, name, value):
        if self._record is None or not _settable(self._attr):
            _refuse("%s.%s" % (self._attr, name))
        if value is None:
            raise UnsetResourceNameError("%s.%s: unsetting is not supported" % (self._attr, name))
        typed = _typed(name, value)
        self._values[name] = typed
        self._record["%s.%s" % (self._attr, name)] = _text(typed)

    def __getattr__(self, name):
        if name.startswith("_"):
            raise AttributeError(name)
        return self._values.get(name)

    def __setattr__(self, name, value):
        self[name] = value

    def __contains__(self, name):
        return name in self._values

    def __iter__(self):
        return iter(self._values)

    def keys(self):
        return self._values.keys()

    def items(self):
        return self._values.items()

    def __str__(self):
        return ",".join("%s=%s" % (k, v) for k, v in sorted(self._values.items()))


class _variable_list(dict):
    """Variable_List: a dict of the job's environment; setting records it."""

    def __init__(self, values, record):
        dict.__init__(self, values or {})
        self._record = record

    def __setitem__(self, name, value):
        if self._record is None or not _settable("Variable_List"):
            _refuse("Variable_List")
        name, value = str(name), str(value)
        if not name or "=" in name or "\0" in name or "\0" in value:
            raise BadAttributeValueError("Variable_List: bad variable name '%s'" % name)
        dict.__setitem__(self, name, value)
        self._record["Variable_List." + name] = value


_INT_ATTRS = {"Priority", "substate", "run_count", "session_id", "Exit_status",
              "ctime", "qtime", "mtime", "etime", "stime", "obittime",
              "Execution_Time", "array_index"}


class job(object):
    """A job, its attributes under their PBS names; None when unset."""

    def __init__(self, attrs, record=None):
        attrs = dict(attrs or {})
        vals = {}
        for name, value in attrs.items():
            if name in ("Resource_List", "resources_used"):
                value = pbs_resource(name, value, record if name == "Resource_List" else None)
            elif name == "Variable_List":
                value = _variable_list(value, record)
            elif name == "job_state":
                value = _JOB_STATES.get(value, value)
            elif name == "queue":
                value = _named(value)
            elif name == "exec_vnode":
                value = exec_vnode(value)
            elif name == "exec_host":
                value = exec_host(value)
            elif name == "Hold_Types":
                value = hold_types(value)
            elif name in _INT_ATTRS and isinstance(value, (int, float)):
                value = int(value)
            vals[name] = value
        if "Resource_List" not in vals:
            vals["Resource_List"] = pbs_resource("Resource_List", {}, record)
        if "Variable_List" not in vals:
            vals["Variable_List"] = _variable_list({}, record)
        if "resources_used" not in vals:
            vals["resources_used"] = pbs_resource("resources_used", {})
        object.__setattr__(self, "_vals", vals)
        object.__setattr__(self, "_record", record)

    def __getattr__(self, name):
        if name.startswith("_"):
            raise AttributeError(name)
        return self._vals.get(name)

    def __setattr__(self, name, value):
        if self._record is None or not _settable(name):
            _refuse(name)
        if name in ("Resource_List", "Variable_List"):
            raise BadAttributeValueTypeError("%s: set its entries, e.g. %s[name] = value" % (name, name))
        if value is None:
            raise UnsetAttributeNameError("%s: unsetting is not supported" % name)
        if name == "Priority":
            try:
                value = int(value)
            except (TypeError, ValueError):
                raise BadAttributeValueTypeError("Priority: not a number")
            if not -1024 <= value <= 1023:
                raise BadAttributeValueError("Priority: out of range -1024..1023")
        elif name == "Rerunable":
            value = _typed_bool(value)
        elif name == "Hold_Types":
            value = hold_types(value)
        else:
            value = str(value)
        self._vals[name] = value
        self._record[name] = _text(value)

    def __str__(self):
        return str(self._vals.get("id") or "")

    def is_checkpointed(self):
        return False

    def in_ms_mom(self):
        """Whether this runs on the job's mother superior: job hooks run
        there only (docs/hooks.md, "Sister hosts")."""
        return _raw.get("type", "").startswith("execjob_")

    def rerun(self):
        raise EventIncompatibleError("job.rerun() is not supported by Strata")

    def delete(self):
        raise EventIncompatibleError("job.delete() is not supported by Strata")


_RESV_INT_ATTRS = {"reserve_start", "reserve_end", "reserve_duration"}


class resv(job):
    """A reservation (resvsub, modifyresv), its attributes under PBS's
    names; times are Unix seconds, ACLs comma-separated strings."""

    def __setattr__(self, name, value):
        if self._record is None or not _settable(name):
            _refuse(name)
        if name == "Resource_List":
            raise BadAttributeValueTypeError("Resource_List: set its entries, e.g. Resource_List['select'] = '2:ncpus=1'")
        if value is None:
            raise UnsetAttributeNameError("%s: unsetting is not supported" % name)
        if name in _RESV_INT_ATTRS:
            try:
                value = int(value)
            except (TypeError, ValueError):
                raise BadAttributeValueTypeError("%s: not a number of seconds" % name)
            if value <= 0:
                raise BadAttributeValueError("%s: must be positive" % name)
            text = str(value)
        elif isinstance(value, (list, tuple)):
            text = ",".join(str(v) for v in value)
            value = text
        else:
            value = str(value)
            text = value
        self._vals[name] = value
        self._record[name] = text

    def __str__(self):
        return str(self._vals.get("resvid") or "")


def _typed_bool(value):
    if isinstance(value, bool):
        return value
    return str(value).lower() in ("true", "t", "y", "yes", "1")


class queue(object):
    def __init__(self, name, attrs):
        self.name = name
        attrs = attrs or {}
        self.queue_type = attrs.get("queue_type")
        self.Priority = attrs.get("Priority")
        self.enabled = attrs.get("enabled")
        self.started = attrs.get("started")
        self.resources_max = pbs_resource("resources_max", attrs.get("resources_max"))
        self.resources_min = pbs_resource("resources_min", attrs.get("resources_min"))
        self.resources_default = pbs_resource("resources_default", attrs.get("resources_default"))

    def __str__(self):
        return self.name

    def jobs(self):
        raise EventIncompatibleError("queue.jobs() is not supported by Strata")


class vnode(object):
    """A vnode. One named without its data (the event's vnode_list) asks
    the server for it when an attribute is first read."""

    def __init__(self, name, attrs=None, lazy=False):
        self.name = name
        self._lazy = lazy
        if not lazy:
            self._fill(attrs)

    def _fill(self, attrs):
        attrs = attrs or {}
        self._lazy = False
        self.state = _node_state(attrs.get("state"))
        self.Mom = attrs.get("Mom")
        self.current_aoe = attrs.get("current_aoe")
        self.provision_enable = attrs.get("provision_enable")
        self.comment = attrs.get("comment")
        self.sharing = attrs.get("sharing")
        self.resources_available = pbs_resource("resources_available", attrs.get("resources_available"))
        self.resources_assigned = pbs_resource("resources_assigned", attrs.get("resources_assigned"))

    def __getattr__(self, attr):
        if attr.startswith("_") or not self.__dict__.get("_lazy"):
            raise AttributeError(attr)
        found = _query("vnode", self.name)
        self._fill(found if isinstance(found, dict) else None)
        return getattr(self, attr)

    def __str__(self):
        return self.name


class server(object):
    """pbs.server(): what the event carries of the server (read-only)."""

    def __init__(self):
        data = _raw.get("server") or {}
        self.name = data.get("server_name") or (_event_job_attrs().get("server") or "")
        self._queues = data.get("queues") or {}
        self._vnodes = data.get("vnodes") or {}

    def __str__(self):
        return self.name

    def queue(self, name):
        if name not in self._queues:
            return None
        return queue(name, self._queues[name])

    def queues(self):
        for name in sorted(self._queues):
            yield queue(name, self._queues[name])

    def vnode(self, name):
        if name in self._vnodes:
            return vnode(name, self._vnodes[name])
        found = _query("vnode", name)
        return vnode(name, found) if isinstance(found, dict) else None

    def vnodes(self):
        every = self._vnodes or _query("vnodes", "") or {}
        for name in sorted(every):
            yield vnode(name, every[name])

    def job(self, jobid):
        """A job by id (read-only), None when there is none or the hook's
        user may not see it. Server events only."""
        attrs = _event_job_attrs()
        if attrs and attrs.get("id") == jobid:
            return job(attrs)
        found = _query("job", jobid)
        return job(found) if isinstance(found, dict) else None

    def jobs(self):
        raise EventIncompatibleError("server().jobs() is not supported by Strata")

    def scheduler_restart_cycle(self):
        raise EventIncompatibleError("scheduler_restart_cycle() is not supported by Strata")


def _event_job_attrs():
    j = _raw.get("job")
    return j if isinstance(j, dict) else {}


# --- the event ---------------------------------------------------------------------


class event(object):
    """pbs.event(): the event the hook runs for (one per hook run)."""

    _instance = None

    def __new__(cls):
        if cls._instance is None:
            inst = object.__new__(cls)
            inst._init()
            cls._instance = inst
        return cls._instance

    def _init(self):
        r = _raw
        self.type = _EVENT_TYPES.get(r.get("type"), 0)
        self.hook_name = r.get("hook_name", "")
        self.hook_type = "site"
        self.requestor = r.get("requestor", "")
        self.requestor_host = r.get("requestor_host", "")
        self.job = job(r["job"], _answer["job"]) if isinstance(r.get("job"), dict) else None
        # modifyjob: job is the qalter request, job_o the job as it is.
        self.job_o = job(r["job_o"]) if isinstance(r.get("job_o"), dict) else None
        # resvsub: resv is the pbs_rsub request; modifyresv: the pbs_ralter
        # request (resvid and what it changes), resv_o the reservation.
        self.resv = resv(r["resv"], _answer["resv"]) if isinstance(r.get("resv"), dict) else None
        self.resv_o = resv(r["resv_o"]) if isinstance(r.get("resv_o"), dict) else None
        srv = r.get("server") or {}
        vnodes = srv.get("vnodes") or {}
        self.vnode_list = {}
        for name in r.get("vnode_list") or []:
            if name in vnodes:
                self.vnode_list[name] = vnode(name, vnodes[name])
            else:
                self.vnode_list[name] = vnode(name, lazy=_query_fds is not None)
        self.vnode = r.get("vnode")
        self.aoe = r.get("aoe")
        self.src_queue = _named(r["src_queue"]) if r.get("src_queue") else None
        self.progname = None
        self.argv = []
        self.env = {}
        self.freq = None
        self.alarm = None
        self.debug = False

    @property
    def hook_config_file(self):
        return _hook_config_filename()

    def accept(self, code=0):
        """Accept the event and end the hook here (SystemExit, as PBS)."""
        _answer["accept"] = True
        _answer["exit"] = int(code)
        raise SystemExit(code)

    def reject(self, msg=None, code=2):
        """Reject the event with msg and end the hook here (SystemExit)."""
        _answer["accept"] = False
        if msg:
            # Bounded so that the answer stays within what the runner reads.
            _answer["reject_message"] = str(msg)[:_MAX_MESSAGE]
        else:
            _answer["reject_message"] = "%s request rejected by '%s'" % (
                _raw.get("type", ""), _raw.get("hook_name", ""))
        if _raw.get("type") == "provision":
            # A provision hook that rejects fails the provisioning: any exit
            # other than 0 (OS) or 1 (application) does.
            code = int(code) if int(code) not in (0, 1) else 2
        else:
            code = 1
        _answer["exit"] = code
        raise SystemExit(code)


# --- configuration file and miscellany ------------------------------------------

_config_file = [None]


def _hook_config_filename():
    """The hook's configuration file (application/x-config), written to a
    private temporary file on first use and removed when the hook ends;
    None when the hook has none."""
    if _config_file[0] is None and _raw.get("config"):
        fd, path = tempfile.mkstemp(prefix="pbs_hook_config_")
        with os.fdopen(fd, "w") as f:
            f.write(_raw["config"])
        _config_file[0] = path
    return _config_file[0]


def __getattr__(name):
    # Module attributes computed on use: hook_config_filename (PBS's name)
    # and hook_config_file.
    if name in ("hook_config_filename", "hook_config_file"):
        return _hook_config_filename()
    raise AttributeError("module 'pbs' has no attribute '%s'" % name)


def get_local_nodename():
    return socket.gethostname().split(".")[0]


def get_hook_config_file():
    return _hook_config_filename()


def version():
    return "strata"


pbs_conf = {"PBS_SERVER": (_raw.get("server") or {}).get("server_name", ""),
            "PBS_HOME": "", "PBS_EXEC": ""}


def get_pbs_conf():
    return dict(pbs_conf)
